import { createContext, useCallback, useContext, useEffect, useId, useState } from 'react';

/**
 * Raw JSON views tell the dialog around them whether what is on screen parses, so that its Save
 * stays disabled until it does: saving the last value that parsed would save something other than
 * what the tester sees.
 */
type Report = (fieldId: string, parses: boolean) => void;

const ParseReport = createContext<Report | null>(null);

/** Provided by a dialog: its unparsable fields, and the report its JSON views call. */
export function useParseProblems() {
  const [unparsable, setUnparsable] = useState<ReadonlySet<string>>(new Set());
  const report = useCallback<Report>((fieldId, parses) => {
    setUnparsable((before) => {
      if (before.has(fieldId) !== parses) return before;
      const after = new Set(before);
      if (parses) after.delete(fieldId);
      else after.add(fieldId);
      return after;
    });
  }, []);
  return { unparsed: unparsable.size > 0, report };
}

export const ParseReportProvider = ParseReport.Provider;

/** Called by a JSON view with whether its text parses; a view that goes away no longer blocks. */
export function useReportParse(parses: boolean): void {
  const report = useContext(ParseReport);
  const fieldId = useId();
  useEffect(() => {
    report?.(fieldId, parses);
    return () => report?.(fieldId, true);
  }, [report, fieldId, parses]);
}
