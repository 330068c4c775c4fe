/**
 * The shape of one tau-bench result record (sierra-research/tau-bench, `historical_trajectories/*.json`):
 * `{task_id, reward, info, traj: [OpenAI chat messages], trial}`. Shared by detection, the
 * tau-bench importer and the OpenAI importer (which points a forced `--format openai` here).
 */
export function isTauBenchRecord(v: unknown): v is { traj: unknown[]; task_id?: unknown } {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const r = v as Record<string, unknown>;
  return Array.isArray(r.traj) && ('task_id' in r || 'reward' in r);
}
