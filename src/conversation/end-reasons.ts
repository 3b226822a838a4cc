/** Why a simulated call ended: text and audio conversations share the list, and scoring reads it. */
export type EndReason =
  'agent_ended' | 'caller_ended' | 'max_turns' | 'max_duration' | 'silence' | 'error';
