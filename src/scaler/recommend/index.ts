/**
 * Stage 2, recommend: the load turned into the replicas it asks for. The sources combined into
 * one demand, with the formula and the fallback (sources.ts, formula.ts, what the stages read of
 * them in sources-view.ts), and the adaptive policy's start-up delay and headroom (adaptive.ts,
 * adaptive-stage.ts). Knative's stable and panic windows are the load decider's (src/load/decider.ts).
 */
export {};
