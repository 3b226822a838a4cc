import {
  Box,
  Button,
  Chip,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Stack,
  Typography,
} from '@mui/material';
import type { OutputOf } from '../client';
import { client, wsInput } from '../stores/session';
import { ErrorNote, useLoad } from './common';
import { callerFacts } from './PersonaCallerFields';
import { voiceName } from './PersonaVoiceFields';

type Persona = OutputOf<'personas.get'>['persona'];

/** The persona's voice and realistic caller, as a list of facts. */
function AudioCallerFacts({ persona: p }: { persona: Persona }) {
  return (
    <Box component="section" aria-label="Audio caller">
      <Typography variant="subtitle1" component="h3">
        Audio caller
      </Typography>
      <Box
        component="dl"
        sx={{ display: 'grid', gridTemplateColumns: 'max-content 1fr', gap: 1, m: 0 }}
      >
        <Typography component="dt" variant="body2" sx={{ fontWeight: 600 }}>
          Voice
        </Typography>
        <Typography component="dd" variant="body2" sx={{ m: 0 }}>
          {voiceName(p.voice)}
        </Typography>
        {callerFacts(p).map(([label, value]) => (
          <Box key={label} sx={{ display: 'contents' }}>
            <Typography component="dt" variant="body2" sx={{ fontWeight: 600 }}>
              {label}
            </Typography>
            <Typography component="dd" variant="body2" sx={{ m: 0 }}>
              {value}
            </Typography>
          </Box>
        ))}
      </Box>
    </Box>
  );
}

/** One persona, as personas.get answers it: who it is, its voice and its realistic caller. */
export function PersonaDetails({
  id,
  onClose,
  onEdit,
}: {
  id: string;
  onClose: () => void;
  onEdit: (persona: Persona) => void;
}) {
  const got = useLoad(() => client().invoke('personas.get', wsInput({ persona_id: id })), [id]);
  const p = got.data?.persona;
  return (
    <Dialog open onClose={onClose} fullWidth aria-labelledby="persona-detail-title">
      <DialogTitle id="persona-detail-title">{p ? p.name : 'Persona'}</DialogTitle>
      <DialogContent>
        <ErrorNote error={got.error} />
        {p && (
          <Stack spacing={2}>
            <Typography sx={{ whiteSpace: 'pre-wrap' }}>{p.prompt}</Typography>
            <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap', rowGap: 1 }}>
              <Chip size="small" label={p.language} />
              <Chip size="small" label={p.emotion} />
              <Chip size="small" label={p.difficulty.replace('_', ' ')} />
              {p.tags.map((t) => (
                <Chip key={t} size="small" variant="outlined" label={t} />
              ))}
            </Stack>
            <AudioCallerFacts persona={p} />
          </Stack>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Close</Button>
        <Button variant="contained" disabled={!p} onClick={() => p && onEdit(p)}>
          Edit
        </Button>
      </DialogActions>
    </Dialog>
  );
}
