/**
 * An engine error's `details` in the screen's words: each path the screen shows as a field is
 * said there (highlighted, with its label), the rest in the error's note, with a link to the
 * setting that fixes it where there is one.
 */
import { Link } from '@mui/material';
import { useSession } from '../stores/session';
import { settingFor, type FieldProblem } from './fieldErrorWords';

export { isWithin, labelOf, settingFor, titleOf } from './fieldErrorWords';
export type { FieldLabels, FieldProblem } from './fieldErrorWords';

/** "Open Settings → Speech": a link to the setting that fixes a problem. */
export function SettingLink({ problem }: { problem: FieldProblem }) {
  const navigate = useSession((s) => s.navigate);
  const setting = settingFor(problem);
  if (!setting) return null;
  return (
    <>
      {' '}
      <Link
        component="button"
        type="button"
        sx={{ verticalAlign: 'baseline' }}
        onClick={() => navigate(setting.route)}
      >
        Open {setting.name}
      </Link>
    </>
  );
}
