import { Box, Stack, Typography } from '@mui/material';
import { useEffect, useRef } from 'react';
import { quoteSpan, type NumberedTurn } from './callTurns';

/** A piece of the judge's evidence: the turn (as numbered) and the words quoted from it. */
export interface Evidence {
  turn: number;
  quote: string;
}

const ROLE_STYLE: Record<NumberedTurn['role'], object> = {
  caller: { bgcolor: 'action.hover' },
  agent: { bgcolor: 'background.paper', border: '1px solid', borderColor: 'divider' },
  tool: { bgcolor: 'background.paper', border: '1px dashed', borderColor: 'divider' },
};

/** The turn's text with the quoted words marked (all of it unmarked when they are not there). */
function MarkedText({ text, quote }: { text: string; quote: string | null }) {
  const span = quote ? quoteSpan(text, quote) : null;
  if (!span) return <>{text}</>;
  return (
    <>
      {text.slice(0, span.start)}
      <mark data-evidence="marked">{text.slice(span.start, span.end)}</mark>
      {text.slice(span.end)}
    </>
  );
}

/**
 * A conversation's turns, each with the number the judge gave it; the turns the evidence cites are
 * edged, and the piece of evidence chosen scrolls its turn into view with its words marked.
 */
export function NumberedTurns({
  turns,
  cited,
  active,
}: {
  turns: NumberedTurn[];
  /** Turn numbers some evidence points at. */
  cited: ReadonlySet<number>;
  active: Evidence | null;
}) {
  const refs = useRef(new Map<number, HTMLElement>());
  useEffect(() => {
    if (active) refs.current.get(active.turn)?.scrollIntoView({ block: 'center' });
  }, [active]);
  return (
    <Stack spacing={1} role="log" aria-label="Numbered turns">
      {turns.map((t) => (
        <Box
          key={t.index}
          ref={(el: HTMLElement | null) => {
            if (el) refs.current.set(t.index, el);
            else refs.current.delete(t.index);
          }}
          data-turn={t.index}
          data-role={t.role}
          aria-current={active?.turn === t.index ? 'true' : undefined}
          sx={{
            p: 1,
            borderRadius: 1,
            ...ROLE_STYLE[t.role],
            ...(cited.has(t.index)
              ? { borderLeft: '4px solid', borderLeftColor: 'warning.main' }
              : {}),
            ...(active?.turn === t.index
              ? { outline: '2px solid', outlineColor: 'primary.main' }
              : {}),
          }}
        >
          <Typography variant="body2" sx={{ wordBreak: 'break-word' }}>
            <Box component="b" sx={{ mr: 1 }}>
              {t.index}.
            </Box>
            <MarkedText text={t.text} quote={active?.turn === t.index ? active.quote : null} />
          </Typography>
          <Typography variant="caption" color="text.secondary">
            {(t.atMs / 1000).toFixed(1)} s
          </Typography>
        </Box>
      ))}
    </Stack>
  );
}
