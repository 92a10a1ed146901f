// Loaded with --import into a benchmarked child: prints its peak RSS to stderr as it exits
// (process.resourceUsage().maxRSS, KiB), for benches that must not depend on /usr/bin/time.
process.on('exit', () => {
  process.stderr.write(`peak-rss-bytes ${process.resourceUsage().maxRSS * 1024}\n`);
});
