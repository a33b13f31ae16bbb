/**
 * Stage 3, limit and bound: what holds the recommendation back or within bounds. Every HPA
 * behaviour rule (hpa-behavior.ts: tolerance, the stabilization windows, the rate policies; its
 * bounded histories in hpa-history.ts), Knative's scaleDownDelay, activationScale and
 * initialScale (knative.ts, max-window.ts), the bounds (bounds.ts) with schedules adjusting them
 * (schedules.ts, bounds-in-force.ts), and these rules as the pipeline's stages (policy-stages.ts).
 */
export {};
