import { Box, Stack, Typography } from '@mui/material';
import type { OutputOf } from '../client';

type ToolAnswer = OutputOf<'tools.test'>;
type Raw = NonNullable<ToolAnswer['raw']>;

const pre = { bgcolor: 'action.hover', p: 1, overflow: 'auto', maxHeight: 300, m: 0 } as const;

/** The body as sent, indented when it is JSON (a minified answer is hard to read). */
function readable(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/** The target's answer as it came: status, headers, body (secrets already masked by the engine). */
function RawPane({ raw }: { raw: Raw }) {
  return (
    <Box role="region" aria-label="Raw answer" sx={{ flex: 1, minWidth: 0 }}>
      <Typography variant="subtitle2">Raw answer · status {raw.status}</Typography>
      <Box component="pre" sx={{ ...pre, maxHeight: 120, mb: 1 }} aria-label="Headers">
        {Object.entries(raw.headers)
          .map(([name, value]) => `${name}: ${value}`)
          .join('\n')}
      </Box>
      <Box component="pre" sx={pre} aria-label="Body">
        {readable(raw.body)}
      </Box>
      {raw.truncated && (
        <Typography variant="body2">
          Showing the first {Math.round(raw.body.length / 1024)} KiB of{' '}
          {Math.round(raw.bytes / 1024)} KiB.
        </Typography>
      )}
    </Box>
  );
}

/** What the agent would get: the result shaped by the response mapping (or the request, dry). */
function MappedPane({ answer }: { answer: ToolAnswer }) {
  const title = answer.dryRun ? 'Request (nothing sent)' : 'Mapped result';
  return (
    <Box role="region" aria-label={title} sx={{ flex: 1, minWidth: 0 }}>
      <Typography variant="subtitle2">{title}</Typography>
      <Box component="pre" sx={pre}>
        {JSON.stringify(answer.request ?? answer.result, null, 2)}
      </Box>
    </Box>
  );
}

/**
 * The answer of a tool test side by side: the target's raw answer and the mapped result, so that a
 * mapping that found nothing can be read against what came back.
 */
export function ToolAnswerPanes({ answer }: { answer: ToolAnswer }) {
  return (
    <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} sx={{ mt: 1 }}>
      {answer.raw && <RawPane raw={answer.raw} />}
      <MappedPane answer={answer} />
    </Stack>
  );
}
