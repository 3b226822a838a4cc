import { useState } from 'react';
import { ws } from '../../stores/session';
import { ReviewDialog } from './ReviewDialog';
import { ScorecardCalibration } from './ScorecardCalibration';

/**
 * The Scorecards screen's part of #37: the chosen scorecard's calibration, and its review, whose
 * labels the calibration shows when the review closes.
 */
export function ScorecardReview({
  scorecard,
}: {
  scorecard: { id: string; name: string; updated_at: string };
}) {
  const [review, setReview] = useState<{ focus?: string } | null>(null);
  const [refreshKey, setRefreshKey] = useState(0);
  return (
    <>
      {/* Mounted anew after a review session or an edit (the rubric): the figures read again. */}
      <ScorecardCalibration
        key={`${refreshKey}:${scorecard.updated_at}`}
        scorecard={scorecard}
        onReview={(focus) => setReview(focus ? { focus } : {})}
      />
      {review && (
        <ReviewDialog
          scope={{ workspaceId: ws(), scorecardId: scorecard.id }}
          focus={review.focus}
          onClose={() => {
            setReview(null);
            setRefreshKey((k) => k + 1);
          }}
        />
      )}
    </>
  );
}
