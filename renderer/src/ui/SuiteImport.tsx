import {
  Alert,
  Box,
  Button,
  Checkbox,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControlLabel,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { useCallback, useRef, useState } from 'react';
import { client, wsInput } from '../stores/session';
import { useSuite } from '../stores/suite';
import { ConfirmButton, ErrorNote, useAction } from './common';
import { placeholderNames, readSuiteFolder, type SuiteFile } from './suiteFiles';
import {
  SuitePlanView,
  SuiteProblems,
  planSummary,
  refusedProblems,
  type SuitePlan,
  type SuiteProblem,
} from './SuitePlanView';

/** "Choose folder…": a folder input (Chromium and Electron alike), read as the suite's files. */
function FolderPicker({ onPick }: { onPick: (files: FileList) => void }) {
  const input = useRef<HTMLInputElement | null>(null);
  // React has no prop for it: the attribute that makes the input pick a folder.
  const asFolder = useCallback((element: HTMLInputElement | null) => {
    input.current = element;
    element?.setAttribute('webkitdirectory', '');
  }, []);
  return (
    <>
      {/* The button opens the input's chooser: one control to reach, none nested in another. */}
      <Button variant="outlined" onClick={() => input.current?.click()}>
        Choose folder…
      </Button>
      <input
        ref={asFolder}
        type="file"
        multiple
        hidden
        aria-label="Suite folder"
        onChange={(e) => {
          if (e.target.files?.length) onPick(e.target.files);
          // The same folder picked again (after editing a file) is read again.
          e.target.value = '';
        }}
      />
    </>
  );
}

/** The values of the placeholders the files name: typed here, sent with the plan, kept nowhere. */
function SecretsForm({
  names,
  values,
  onChange,
}: {
  names: string[];
  values: Record<string, string>;
  onChange: (name: string, value: string) => void;
}) {
  if (!names.length) return null;
  return (
    <Box component="fieldset" sx={{ border: 0, p: 0, m: 0, mt: 2 }}>
      <Typography component="legend" variant="subtitle1">
        Secrets
      </Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
        Values for the placeholders the files use. Left empty, an existing resource keeps the secret
        it has.
      </Typography>
      <Stack spacing={1}>
        {names.map((name) => (
          <TextField
            key={name}
            size="small"
            type="password"
            autoComplete="off"
            label={name}
            value={values[name] ?? ''}
            onChange={(e) => onChange(name, e.target.value)}
          />
        ))}
      </Stack>
    </Box>
  );
}

/** What the plan and the apply are sent: the files, the secrets typed, whether to prune. */
interface ImportInput {
  files: SuiteFile[];
  secrets: Record<string, string>;
  prune: boolean;
}

const bodyOf = ({ files, secrets, prune }: ImportInput) => {
  // Only the values typed: an empty one means "keep the stored secret", which is leaving it out.
  const typed = Object.fromEntries(Object.entries(secrets).filter(([, v]) => v !== ''));
  return wsInput({ files, secrets: typed, prune });
};

/** The import's state: the folder read, the plan for what is on screen, the apply and its refusal. */
function useSuiteImport() {
  const [input, setInput] = useState<ImportInput | null>(null);
  const [plan, setPlan] = useState<SuitePlan | null>(null);
  // The plan answers for the prune and secrets it was asked with; changing them asks again.
  const [stale, setStale] = useState(false);
  const [refused, setRefused] = useState<SuiteProblem[] | null>(null);
  const [applied, setApplied] = useState<SuitePlan | null>(null);
  const planning = useAction(async (next: ImportInput) => {
    setInput(next);
    setRefused(null);
    // A plan for other files or settings is never left on screen (nor applied).
    setPlan(null);
    const answer = await client().invoke('suite.plan', bodyOf(next));
    setPlan(answer.plan);
    setStale(false);
  });
  const applying = useAction(async (current: ImportInput) => {
    try {
      const answer = await client().invoke('suite.apply', bodyOf(current));
      setApplied(answer.plan);
      useSuite.getState().markApplied();
    } catch (err) {
      const problems = refusedProblems(err);
      if (!problems) throw err;
      // What only the writing found (nothing was written): the problems, and no Apply until fixed.
      setPlan(null);
      setRefused(problems);
    }
  });
  const pick = async (list: FileList) => {
    let files: SuiteFile[];
    try {
      files = await readSuiteFolder(list);
    } catch (err) {
      // A file that could not be read (removed meanwhile, unreadable): said as any error is.
      planning.setError(err);
      return;
    }
    // The secrets typed stay for the folder picked again (after editing a file).
    await planning.run({ files, secrets: input?.secrets ?? {}, prune: input?.prune ?? false });
  };
  const editSecrets = (secrets: Record<string, string>) => {
    if (!input) return;
    setInput({ ...input, secrets });
    setStale(true);
  };
  return { input, plan, stale, refused, applied, planning, applying, pick, editSecrets };
}

type Import = ReturnType<typeof useSuiteImport>;

/** Apply, after the tester confirms what it changes; only for a valid plan of what is on screen. */
function ApplyButton({ state, workspaceName }: { state: Import; workspaceName: string }) {
  const { input, plan, stale, applying } = state;
  const changes = plan?.entries.filter((e) => e.action !== 'unchanged').length ?? 0;
  const ready = Boolean(input && plan?.valid && !stale && changes > 0 && !applying.busy);
  return (
    <ConfirmButton
      color="primary"
      disabled={!ready}
      question={`Apply the suite to “${workspaceName}”?`}
      consequence={`${plan ? planSummary(plan.entries) : ''}. Everything is applied in one transaction, or nothing is.`}
      confirmLabel="Apply"
      onConfirm={() => input && applying.run(input)}
    >
      {applying.busy ? 'Applying…' : 'Apply…'}
    </ConfirmButton>
  );
}

/** The folder, the prune, the secrets, and the plan or the refusal of the last apply. */
function ImportForm({ state }: { state: Import }) {
  const { input, plan, stale, refused, planning, applying } = state;
  return (
    <>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
        Pick the suite’s folder (the one holding callbench.yaml). Nothing changes until you apply
        the plan.
      </Typography>
      <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
        <FolderPicker onPick={(files) => void state.pick(files)} />
        {input && <Typography variant="body2">{input.files.length} files read</Typography>}
      </Stack>
      <FormControlLabel
        control={
          <Checkbox
            checked={input?.prune ?? false}
            disabled={!input}
            // A prune changes the plan's deletes: it is planned again at once.
            onChange={(e) => input && void planning.run({ ...input, prune: e.target.checked })}
          />
        }
        label="Prune: delete the workspace’s personas, scorecards, scenarios and schedules no file defines"
      />
      {input && (
        <SecretsForm
          names={placeholderNames(input.files)}
          values={input.secrets}
          onChange={(name, value) => state.editSecrets({ ...input.secrets, [name]: value })}
        />
      )}
      <ErrorNote error={planning.error ?? applying.error} />
      {refused && (
        <SuiteProblems
          problems={refused}
          title="The engine refused the suite: nothing was applied"
        />
      )}
      {planning.busy && <Typography role="status">Reading the plan…</Typography>}
      {stale && !planning.busy && (
        <Alert severity="info" sx={{ my: 1 }}>
          The secrets changed since this plan: plan again to apply with them.
        </Alert>
      )}
      {plan && !planning.busy && <SuitePlanView plan={plan} />}
    </>
  );
}

/** The body of the import dialog, mounted while it is open (its secrets go when it closes). */
function ImportBody({ workspaceName, onClose }: { workspaceName: string; onClose: () => void }) {
  const state = useSuiteImport();
  const { input, stale, applied, planning } = state;
  return (
    <>
      <DialogContent>
        {applied ? (
          <Alert severity="success" role="status">
            Applied to “{workspaceName}”: {planSummary(applied.entries)}.
          </Alert>
        ) : (
          <ImportForm state={state} />
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{applied ? 'Close' : 'Cancel'}</Button>
        {!applied && input && stale && (
          <Button disabled={planning.busy} onClick={() => void planning.run(input)}>
            Plan again
          </Button>
        )}
        {!applied && <ApplyButton state={state} workspaceName={workspaceName} />}
      </DialogActions>
    </>
  );
}

/** Import in the workspace menu: pick a folder, read the plan, apply it after confirming. */
export function SuiteImportDialog({ workspaceName }: { workspaceName: string }) {
  const { open, close } = useSuite();
  return (
    <Dialog open={open === 'import'} onClose={close} fullWidth maxWidth="md">
      <DialogTitle>Import a suite into “{workspaceName}”</DialogTitle>
      {open === 'import' && <ImportBody workspaceName={workspaceName} onClose={close} />}
    </Dialog>
  );
}
