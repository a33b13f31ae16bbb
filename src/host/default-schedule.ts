/** The timer's schedule unless DROVER_SCHEDULE says otherwise (NCRONTAB, seconds first); here without the cron parser. */
export const DEFAULT_SCHEDULE = '0 */1 * * * *';
