import {
  Alert,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  TextField,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { client, wsInput } from '../stores/session';
import { useSuite } from '../stores/suite';
import { ActionButton, ErrorNote, fieldError, useAction } from './common';
import { download, zipName, zipSuite } from './suiteFiles';
import { directoryPicker, saveToFolder } from './suiteFolder';

/** `smoke, slow ,` → `['smoke', 'slow']`. */
const tagsOf = (text: string): string[] =>
  text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);

/** Asks the engine for the suite's files (leaving out the tags given) and saves them. */
function useSuiteExport(workspaceName: string) {
  const [done, setDone] = useState<string | null>(null);
  const fetchFiles = async (excludeTags: string[]) => {
    setDone(null);
    const input = excludeTags.length ? { excludeTags } : {};
    return (await client().invoke('suite.export', wsInput(input))).files;
  };
  const toFolder = useAction(async (excludeTags: string[]) => {
    const picker = directoryPicker();
    if (!picker) return;
    const files = await fetchFiles(excludeTags);
    if (await saveToFolder(picker, files)) setDone(`Saved ${files.length} files to the folder.`);
  });
  const toZip = useAction(async (excludeTags: string[]) => {
    const files = await fetchFiles(excludeTags);
    const name = zipName(workspaceName);
    download(zipSuite(files), name, 'application/zip');
    setDone(`Downloaded ${name} (${files.length} files).`);
  });
  return { done, toFolder, toZip };
}

/** The body of the export dialog, mounted while it is open. */
function ExportBody({ workspaceName, onClose }: { workspaceName: string; onClose: () => void }) {
  const [tags, setTags] = useState('');
  const { done, toFolder, toZip } = useSuiteExport(workspaceName);
  const error = toFolder.error ?? toZip.error;
  const busy = toFolder.busy || toZip.busy;
  // Chromium and Electron can write into a folder; elsewhere the files come as one .zip.
  const canPickFolder = directoryPicker() !== null;
  return (
    <>
      <DialogContent>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
          The workspace’s personas, scorecards, scenarios and schedules, with the tools and alerts
          they use, as YAML files to keep in git. Secrets are written as placeholders, never their
          values.
        </Typography>
        <TextField
          fullWidth
          label="Leave out scenarios tagged"
          value={tags}
          onChange={(e) => setTags(e.target.value)}
          error={Boolean(fieldError(error, 'excludeTags'))}
          helperText={
            fieldError(error, 'excludeTags') ??
            'Tags separated by commas; their schedules and alerts are left out too'
          }
        />
        <ErrorNote error={error && !fieldError(error, 'excludeTags') ? error : null} />
        {done && (
          <Alert severity="success" role="status" sx={{ mt: 2 }}>
            {done}
          </Alert>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Close</Button>
        <Button disabled={busy} onClick={() => void toZip.run(tagsOf(tags))}>
          Download .zip
        </Button>
        {canPickFolder && (
          <ActionButton busy={busy} onClick={() => void toFolder.run(tagsOf(tags))}>
            Save to folder…
          </ActionButton>
        )}
      </DialogActions>
    </>
  );
}

/** Export in the workspace menu: the suite as files, into a folder or a .zip. */
export function SuiteExportDialog({ workspaceName }: { workspaceName: string }) {
  const { open, close } = useSuite();
  return (
    <Dialog open={open === 'export'} onClose={close} fullWidth maxWidth="sm">
      <DialogTitle>Export “{workspaceName}” as files</DialogTitle>
      {open === 'export' && <ExportBody workspaceName={workspaceName} onClose={close} />}
    </Dialog>
  );
}
