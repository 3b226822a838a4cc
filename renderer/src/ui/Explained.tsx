import { Tooltip } from '@mui/material';
import type { ReactNode } from 'react';

/**
 * A figure or its heading, explained on hover and on keyboard focus. The explanation describes
 * the element (aria-describedby): its accessible name stays its visible text.
 */
export function Explained({ help, children }: { help: string; children: ReactNode }) {
  return (
    <Tooltip title={help} describeChild>
      <span tabIndex={0} style={{ textDecoration: 'underline dotted', cursor: 'help' }}>
        {children}
      </span>
    </Tooltip>
  );
}
