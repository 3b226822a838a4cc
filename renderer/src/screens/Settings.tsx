import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  FormControlLabel,
  MenuItem,
  Stack,
  Switch,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  TextField,
  Typography,
} from '@mui/material';
import { useEffect, useState, type ReactNode } from 'react';
import type { InputOf, OutputOf } from '../client';
import { client, useSession } from '../stores/session';
import { useTeam } from '../stores/team';
import { SpeechSettings } from '../ui/SpeechSettings';
import { PricesSettings } from '../ui/PricesSettings';
import {
  ActionButton,
  ConfirmButton,
  ConnectionTestButton,
  ErrorNote,
  Page,
  fieldError,
  fmtDate,
  useAction,
  useLoad,
} from '../ui/common';

const Section = ({ title, id, children }: { title: string; id?: string; children: ReactNode }) => (
  <Card sx={{ mb: 2 }} component="section" aria-label={title} id={id && `settings-${id}`}>
    <CardContent>
      <Typography variant="h6" component="h2" gutterBottom>
        {title}
      </Typography>
      {children}
    </CardContent>
  </Card>
);

function Keys() {
  const keys = useLoad(() => client().invoke('keys.list'), []);
  const [label, setLabel] = useState('');
  const [created, setCreated] = useState<string | null>(null);
  const create = useAction(async () => {
    setCreated((await client().invoke('keys.create', label ? { label } : {})).key.key);
    setLabel('');
    await keys.reload();
  });
  const revoke = useAction(async (id: string) => {
    await client().invoke('keys.revoke', { key_id: id });
    await keys.reload();
  });
  return (
    <Section title="API keys">
      {created && (
        <Alert severity="success" sx={{ mb: 1 }}>
          New key (shown only now): <code data-testid="new-key">{created}</code>
        </Alert>
      )}
      <Stack direction="row" spacing={1}>
        <TextField
          size="small"
          label="Label"
          value={label}
          onChange={(e) => setLabel(e.target.value)}
        />
        <ActionButton busy={create.busy} onClick={() => void create.run()}>
          Create key
        </ActionButton>
      </Stack>
      <ErrorNote error={keys.error ?? create.error ?? revoke.error} />
      <Table size="small" aria-label="API keys">
        <TableHead>
          <TableRow>
            <TableCell>Label</TableCell>
            <TableCell>Key</TableCell>
            <TableCell>Created</TableCell>
            <TableCell>Last used</TableCell>
            <TableCell />
          </TableRow>
        </TableHead>
        <TableBody>
          {(keys.data?.keys ?? []).map((k) => (
            <TableRow key={k.id}>
              <TableCell>{k.label}</TableCell>
              <TableCell>{k.prefix}…</TableCell>
              <TableCell>{fmtDate(k.created_at)}</TableCell>
              <TableCell>{fmtDate(k.last_used_at)}</TableCell>
              <TableCell>
                <ConfirmButton
                  size="small"
                  question={`Revoke the key ${k.label ? `"${k.label}"` : `${k.prefix}…`}?`}
                  consequence="Every script and CI job using it is refused from now on."
                  confirmLabel="Revoke key"
                  onConfirm={() => revoke.run(k.id)}
                >
                  Revoke
                </ConfirmButton>
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </Section>
  );
}

type SettingsAnswer = OutputOf<'settings.get'>;
type ModelRoleAnswer = NonNullable<SettingsAnswer['llm']['caller']>;

/** The SMTP form: text fields as typed (the port too), the two switches as booleans. */
interface SmtpForm {
  host: string;
  port: string;
  user: string;
  password: string;
  from: string;
  secure: boolean;
  allowInsecure: boolean;
}

/** The engine's numeric settings, as typed into their fields. */
type EngineForm = Partial<
  Record<
    'concurrency' | 'maxTurns' | 'maxDurationMs' | 'intervalMinutes' | 'maxResponseMiB',
    string
  >
>;

/** The form for what the engine answered; the masked password is never sent back. */
function smtpForm(smtp: SettingsAnswer['smtp']): SmtpForm {
  return {
    host: smtp?.host ?? '',
    port: String(smtp?.port ?? 587),
    user: smtp?.user ?? '',
    password: '',
    from: smtp?.from ?? '',
    secure: smtp?.secure ?? false,
    allowInsecure: smtp?.allowInsecure ?? false,
  };
}

function ModelRole({
  role,
  current,
  onSaved,
}: {
  role: 'caller' | 'judge' | 'replica';
  current: ModelRoleAnswer | null;
  onSaved: () => void;
}) {
  const [form, setForm] = useState({
    kind: current?.kind ?? 'openai',
    baseUrl: current?.baseUrl ?? '',
    model: current?.model ?? '',
    apiKey: current?.apiKey ?? '',
  });
  const save = useAction(async () => {
    await client().invoke('settings.update', {
      llm: {
        [role]: {
          kind: form.kind,
          baseUrl: form.baseUrl || null,
          model: form.model,
          apiKey: form.apiKey,
        },
      },
    });
    onSaved();
  });
  const remove = useAction(async () => {
    await client().invoke('settings.update', { llm: { [role]: null } });
    onSaved();
  });
  const err = (k: string) => fieldError(save.error, `llm.${role}.${k}`);
  return (
    <Box sx={{ mb: 2 }} role="group" aria-label={role}>
      <Typography variant="subtitle1">
        {role} {current?.source === 'environment' && '(from CALLBENCH_LLM_*)'}
      </Typography>
      <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap' }}>
        <TextField
          size="small"
          select
          label="Kind"
          value={form.kind}
          onChange={(e) => setForm({ ...form, kind: e.target.value })}
          sx={{ width: 140 }}
        >
          <MenuItem value="openai">OpenAI-compatible</MenuItem>
          <MenuItem value="anthropic">Anthropic</MenuItem>
        </TextField>
        <TextField
          size="small"
          label="Base URL"
          value={form.baseUrl}
          onChange={(e) => setForm({ ...form, baseUrl: e.target.value })}
          error={Boolean(err('baseUrl'))}
          helperText={err('baseUrl')}
        />
        <TextField
          size="small"
          label="Model"
          value={form.model}
          onChange={(e) => setForm({ ...form, model: e.target.value })}
          error={Boolean(err('model'))}
          helperText={err('model')}
        />
        <TextField
          size="small"
          label="API key"
          type="password"
          value={form.apiKey}
          onChange={(e) => setForm({ ...form, apiKey: e.target.value })}
          error={Boolean(err('apiKey'))}
          helperText={err('apiKey')}
        />
        <ActionButton busy={save.busy} onClick={() => void save.run()}>
          Save {role}
        </ActionButton>
        {current?.source === 'settings' && (
          <ConfirmButton
            color="warning"
            question={`Remove the ${role} model?`}
            consequence={`Its URL and key are forgotten; simulations needing a ${role} model cannot start until one is set.`}
            confirmLabel="Remove"
            onConfirm={() => remove.run()}
          >
            Remove
          </ConfirmButton>
        )}
        <ConnectionTestButton
          label={`Test connection to the ${role} model`}
          test={() => client().invoke('settings.testModel', { role })}
        />
      </Stack>
      <ErrorNote error={save.error ?? remove.error} />
    </Box>
  );
}

function DesktopServer() {
  const transport = useSession((s) => s.client?.transport);
  const prefs = useLoad(
    async () => (transport === 'ipc' ? client().invoke('desktop.preferences.get') : null),
    [transport],
  );
  const save = useAction(async (patch: InputOf<'desktop.preferences.update'>) => {
    await client().invoke('desktop.preferences.update', patch);
    await prefs.reload();
  });
  if (transport !== 'ipc')
    return (
      <Typography variant="body2">
        This page is served by the local API server itself (browser mode); the desktop app turns it
        on or off and sets its port.
      </Typography>
    );
  const p = prefs.data;
  return (
    p && (
      <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
        <FormControlLabel
          control={
            <Switch
              checked={p.server.enabled}
              onChange={(e) => void save.run({ server: { enabled: e.target.checked } })}
            />
          }
          label="Local HTTP API on 127.0.0.1"
        />
        <TextField
          size="small"
          label="Port"
          type="number"
          defaultValue={p.server.port}
          onBlur={(e) => void save.run({ server: { port: Number(e.target.value) } })}
          error={Boolean(fieldError(save.error, 'server.port'))}
          helperText={fieldError(save.error, 'server.port') ?? p.server.url ?? 'off'}
        />
        <ErrorNote error={save.error} />
      </Stack>
    )
  );
}

/**
 * Desktop only: the team server (its URL and an API key, which main seals with the OS keychain and
 * never hands back), and which engine the window reads. Each switch reloads the page.
 */
function TeamServer() {
  const { view, load, save, switchTo, forget } = useTeam();
  const [url, setUrl] = useState<string | null>(null);
  const [apiKey, setApiKey] = useState('');
  useEffect(() => {
    void load().catch(() => {});
  }, [load]);
  const typedUrl = url ?? view?.url ?? '';
  const connect = useAction(async () => {
    await save({ url: typedUrl, apiKey });
    setApiKey('');
    await switchTo('team');
  });
  const change = useAction(switchTo);
  const remove = useAction(forget);
  if (!view) return null;
  const onTeam = view.inUse === 'team';
  return (
    <Section title="Team server">
      <Typography variant="body2" sx={{ mb: 1 }}>
        {onTeam
          ? `In use: the team server at ${view.url}. This computer's engine keeps running for its own workspace.`
          : 'In use: this computer. Connect to a team server (callbench serve) to share agents, suites and results.'}
      </Typography>
      <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap', alignItems: 'flex-start' }}>
        <TextField
          size="small"
          label="URL"
          placeholder="https://callbench.example.com"
          value={typedUrl}
          onChange={(e) => setUrl(e.target.value)}
          error={Boolean(fieldError(connect.error, 'url'))}
          helperText={fieldError(connect.error, 'url')}
          sx={{ minWidth: 280 }}
        />
        <TextField
          size="small"
          label="API key"
          type="password"
          autoComplete="off"
          value={apiKey}
          onChange={(e) => setApiKey(e.target.value)}
          error={Boolean(fieldError(connect.error, 'apiKey'))}
          helperText={
            fieldError(connect.error, 'apiKey') ??
            (view.keySaved ? 'saved in the OS keychain; enter it again to change it' : undefined)
          }
        />
        <ActionButton
          busy={connect.busy}
          disabled={!typedUrl.trim() || !apiKey.trim()}
          onClick={() => void connect.run()}
        >
          Save and connect
        </ActionButton>
        {onTeam ? (
          <Button disabled={change.busy} onClick={() => void change.run('local')}>
            Use this computer
          </Button>
        ) : (
          view.keySaved && (
            <Button disabled={change.busy} onClick={() => void change.run('team')}>
              {change.busy ? 'Connecting…' : 'Use team server'}
            </Button>
          )
        )}
        {view.url && (
          <ConfirmButton
            color="warning"
            question="Forget the team server?"
            consequence="Its URL and API key are removed from this computer, and the app reads this computer's engine again."
            confirmLabel="Forget"
            onConfirm={() => remove.run()}
          >
            Forget
          </ConfirmButton>
        )}
      </Stack>
      <ErrorNote error={connect.error ?? change.error ?? remove.error} />
    </Section>
  );
}

/** The form starts from what the engine answered, each time it answers: adjusted while rendering. */
function useFormOf<F>(data: SettingsAnswer, formOf: (data: SettingsAnswer) => F) {
  const [form, setForm] = useState<F>(() => formOf(data));
  const [shown, setShown] = useState(data);
  if (data !== shown) {
    setShown(data);
    setForm(formOf(data));
  }
  return [form, setForm] as const;
}

const engineForm = (data: SettingsAnswer): EngineForm => ({
  concurrency: String(data.simulations.concurrency),
  maxTurns: String(data.simulations.maxTurns),
  maxDurationMs: String(data.simulations.maxDurationMs),
  intervalMinutes: String(data.sync.intervalMinutes),
  maxResponseMiB: String(data.network.maxResponseMiB),
});

function EngineSection({ data, onSaved }: { data: SettingsAnswer; onSaved: () => unknown }) {
  const [engine, setEngine] = useFormOf(data, engineForm);
  const saveEngine = useAction(async () => {
    await client().invoke('settings.update', {
      simulations: {
        concurrency: Number(engine.concurrency),
        maxTurns: Number(engine.maxTurns),
        maxDurationMs: Number(engine.maxDurationMs),
      },
      sync: { intervalMinutes: Number(engine.intervalMinutes) },
      network: { maxResponseMiB: Number(engine.maxResponseMiB) },
    });
    await onSaved();
  });
  const num = (k: keyof EngineForm, label: string, path: string) => (
    <TextField
      size="small"
      type="number"
      label={label}
      value={engine[k] ?? ''}
      onChange={(e) => setEngine({ ...engine, [k]: e.target.value })}
      error={Boolean(fieldError(saveEngine.error, path))}
      helperText={fieldError(saveEngine.error, path)}
    />
  );
  return (
    <Section title="Simulations and sync">
      <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap' }}>
        {num('concurrency', 'Simulations at once', 'simulations.concurrency')}
        {num('maxTurns', 'Max turns', 'simulations.maxTurns')}
        {num('maxDurationMs', 'Max duration (ms)', 'simulations.maxDurationMs')}
        {num('intervalMinutes', 'Sync every (minutes)', 'sync.intervalMinutes')}
        {num('maxResponseMiB', 'Largest answer (MiB)', 'network.maxResponseMiB')}
        <ActionButton busy={saveEngine.busy} onClick={() => void saveEngine.run()}>
          Save
        </ActionButton>
      </Stack>
      <ErrorNote error={saveEngine.error} />
    </Section>
  );
}

function SmtpSection({ data, onSaved }: { data: SettingsAnswer; onSaved: () => unknown }) {
  const [smtp, setSmtp] = useFormOf(data, (d) => smtpForm(d.smtp));
  const saveSmtp = useAction(async () => {
    await client().invoke('settings.update', {
      smtp: {
        host: smtp.host,
        port: Number(smtp.port),
        from: smtp.from,
        user: smtp.user || null,
        ...(smtp.password ? { password: smtp.password } : {}),
        secure: Boolean(smtp.secure),
        allowInsecure: Boolean(smtp.allowInsecure),
      },
    });
    await onSaved();
  });
  return (
    <Section title="E-mail (SMTP)" id="smtp">
      <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap' }}>
        {(['host', 'port', 'user', 'password', 'from'] as const).map((k) => (
          <TextField
            key={k}
            size="small"
            label={k}
            type={k === 'password' ? 'password' : 'text'}
            value={smtp[k] ?? ''}
            onChange={(e) => setSmtp({ ...smtp, [k]: e.target.value })}
            error={Boolean(fieldError(saveSmtp.error, `smtp.${k}`))}
            helperText={
              fieldError(saveSmtp.error, `smtp.${k}`) ??
              (k === 'password' && data.smtp?.password
                ? `set (${data.smtp.password}); empty keeps it`
                : undefined)
            }
          />
        ))}
        <ActionButton busy={saveSmtp.busy} onClick={() => void saveSmtp.run()}>
          Save SMTP
        </ActionButton>
      </Stack>
      <FormControlLabel
        control={
          <Switch
            checked={Boolean(smtp.allowInsecure)}
            onChange={(e) => setSmtp({ ...smtp, allowInsecure: e.target.checked })}
          />
        }
        label="Allow sending the password without TLS"
      />
      {Boolean(smtp.allowInsecure) && (
        <Alert severity="warning">
          The SMTP password will be sent in plaintext when the server offers no TLS: anyone on the
          network path can read it. Use this only for a server on this machine.
        </Alert>
      )}
      <ErrorNote error={saveSmtp.error} />
    </Section>
  );
}

/**
 * `settings/<section>` (a link from an error naming the setting that fixes it) scrolls that
 * section into view once the settings are shown.
 */
function useScrollToSection(ready: boolean) {
  const section = useSession((s) => (s.route[0] === 'settings' ? s.route[1] : undefined));
  useEffect(() => {
    if (ready && section)
      document.getElementById(`settings-${section}`)?.scrollIntoView({ block: 'start' });
  }, [ready, section]);
}

export function Settings() {
  const settings = useLoad(() => client().invoke('settings.get'), []);
  const llm = settings.data?.llm;
  const { theme, setTheme } = useSession();
  const transport = useSession((s) => s.client?.transport);
  useScrollToSection(Boolean(settings.data));
  return (
    <Page title="Settings">
      <ErrorNote error={settings.error} />
      <Section title="Appearance">
        <FormControlLabel
          control={
            <Switch
              checked={theme === 'dark'}
              onChange={(e) => setTheme(e.target.checked ? 'dark' : 'light')}
            />
          }
          label="Dark theme"
        />
      </Section>
      <Section title="API server">
        <DesktopServer />
      </Section>
      {transport === 'ipc' && <TeamServer />}
      <Keys />
      {llm && (
        <Section title="Language models" id="models">
          {(['caller', 'judge', 'replica'] as const).map((role) => (
            <ModelRole
              key={`${role}-${llm[role]?.model}`}
              role={role}
              current={llm[role]}
              onSaved={() => void settings.reload()}
            />
          ))}
        </Section>
      )}
      {/* The forms appear with the engine's answer: typed into before it, they would be reset by it. */}
      {settings.data && (
        <>
          <EngineSection data={settings.data} onSaved={settings.reload} />
          <Section title="Speech (audio simulations)" id="speech">
            <SpeechSettings
              speech={settings.data.speech}
              retentionDays={settings.data.recordings.retentionDays}
              onSaved={() => void settings.reload()}
            />
          </Section>
          <Section title="Prices" id="prices">
            <PricesSettings prices={settings.data.prices} onSaved={() => void settings.reload()} />
          </Section>
          <SmtpSection data={settings.data} onSaved={settings.reload} />
        </>
      )}
    </Page>
  );
}
