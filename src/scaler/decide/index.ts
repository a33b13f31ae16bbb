/**
 * Stage 5, decide: the stages run in order (pipeline.ts, ending with the pause, pause.ts) and one
 * target's decision and plan from plain data (decide-target.ts, plan-scale.ts, plan-target.ts),
 * with the re-enqueues it asks for and the lines that explain it (follow-ups.ts, requeue.ts).
 */
export {};
