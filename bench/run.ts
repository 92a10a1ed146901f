// `npm run bench`: every benchmark, each printing its own figures. Ratios measured in one
// run are what to quote; absolute times drift on shared machines (docs/performance.md).
import fs from 'node:fs';
import path from 'node:path';

const only = process.argv.slice(2);
const want = (name: string): boolean => only.length === 0 || only.includes(name);

if (want('check')) await (await import('./check.ts')).benchCheck();
if (want('startup')) await (await import('./startup.ts')).benchStartup();
if (want('reference')) await (await import('./reference.ts')).benchReference();
if (want('audit')) (await import('./audit.ts')).benchAudit();
if (want('relay') && fs.existsSync(path.join(import.meta.dirname, 'relay.ts'))) await (await import('./relay.ts')).benchRelay();
if (want('relay-analysis')) await (await import('./relayAnalysis.ts')).benchRelayAnalysis();
if (want('browser') && fs.existsSync(path.join(import.meta.dirname, 'browser.ts'))) await (await import('./browser.ts')).benchBrowser();
if (want('links') && fs.existsSync(path.join(import.meta.dirname, 'links.ts'))) await (await import('./links.ts')).benchLinks();
if (want('compact')) (await import('./compact.ts')).benchCompact();
if (want('redis')) await (await import('./redis.ts')).benchRedis();
if (want('report')) await (await import('./report.ts')).benchReport();
if (want('compare') && fs.existsSync(path.join(import.meta.dirname, 'compare.ts'))) await (await import('./compare.ts')).benchCompare();
if (want('batch')) await (await import('./batch.ts')).benchBatch();
if (want('stream-json')) await (await import('./streamJson.ts')).benchStreamJson();
if (want('otlp')) await (await import('./otlp.ts')).benchOtlp();
if (want('otlp') || want('otlp-memory')) await (await import('./otlpMemory.ts')).benchOtlpMemory();
if (want('handback')) await (await import('./handback.ts')).benchHandback();
if (want('proxy')) await (await import('./proxy.ts')).benchProxy();
if (want('sessions')) await (await import('./localSessions.ts')).benchLocalSessions();
if (want('traj-memory')) (await import('./peakMemory.ts')).benchTrajMemory();
if (want('report-huge')) (await import('./peakMemory.ts')).benchReportHuge();
if (want('text-index')) await (await import('./peakMemory.ts')).benchTextIndexMemory();
if (want('scaling')) (await import('./scaling.ts')).benchScaling();
if (want('idle-rss')) await (await import('./idleRss.ts')).benchIdleRss();
if (want('connection-flood')) await (await import('./connectionFlood.ts')).benchConnectionFlood();
if (want('refetch-browser')) await (await import('./refetchBrowser.ts')).benchRefetchBrowser();
