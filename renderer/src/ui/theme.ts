import { createTheme, type Theme } from '@mui/material';

/**
 * The app's theme. MUI's default primary blue (4.2:1 on a hovered row), warning orange (3.1:1 on
 * white), info blue (3.9:1) and dark-mode
 * error red (3.7:1 under white text, 4.2:1 on a dark dialog) fail WCAG AA for the small text of
 * chips and buttons; these shades pass 4.5:1 as text on the page and under their contrast text.
 */
export function appTheme(mode: 'light' | 'dark'): Theme {
  return createTheme({
    palette:
      mode === 'light'
        ? {
            mode,
            primary: { main: '#1565c0', contrastText: '#ffffff' },
            warning: { main: '#b35000', contrastText: '#ffffff' },
            info: { main: '#01579b', contrastText: '#ffffff' },
          }
        : {
            mode,
            error: { main: '#f66a5e', contrastText: 'rgba(0, 0, 0, 0.87)' },
          },
  });
}
