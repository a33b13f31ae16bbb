/**
 * Loaded with `node --import` into one soak host: its Date.now runs DROVER_SOAK_SKEW_MS off, as on
 * a machine whose clock is wrong. A soak device only: Drover itself has no such switch.
 */
const offset = Number(process.env.DROVER_SOAK_SKEW_MS ?? 0);
const realNow = Date.now.bind(Date);
Date.now = () => realNow() + offset;
export {};
