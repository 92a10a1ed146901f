/** The CLI's figures are this wide (CSS pixels; the PNG is twice that): the view is shaped for it (report.ts) and the charts drawn at it (charts.tsx). */
export const REPORT_CHART_WIDTH = 880;
