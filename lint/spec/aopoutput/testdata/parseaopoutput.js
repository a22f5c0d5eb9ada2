// The spec's reference parser, aop-output-1.0.0 §Parsing AOP Output, verbatim
// (TestSpecParserCopy holds it to the spec's text when shared/ is beside the
// repository), and a driver: a JSON array of reports on standard input, a JSON
// array of parseAOPOutput's results on standard output.
function parseAOPOutput(output) {
  const result = {
    task: null,
    summary: null,
    detailsFile: null,
    metrics: {},
    status: 'unknown',
    timestamps: { start: null, end: null }
  };

  // Extract markers
  const startMatch = output.match(/\[AOP:START\]\s*(.+)/);
  const taskMatch = output.match(/\[AOP:TASK\]\s*(.+)/);
  const summaryMatch = output.match(/\[AOP:SUMMARY\]([\s\S]*?)\[AOP:/);
  const fileMatch = output.match(/\[AOP:DETAILS_FILE\]\s*(\S+)/);
  const metricsMatch = output.match(/\[AOP:METRICS\]\s*(.+)/);
  const statusMatch = output.match(/\[AOP:STATUS\]\s*(\w+)/);
  const endMatch = output.match(/\[AOP:END\]\s*(.+)/);

  if (startMatch) result.timestamps.start = startMatch[1].trim();
  if (taskMatch) result.task = taskMatch[1].trim();
  if (summaryMatch) result.summary = summaryMatch[1].trim().slice(0, 600);
  if (fileMatch) result.detailsFile = fileMatch[1].trim();
  if (statusMatch) result.status = statusMatch[1].toLowerCase();
  if (endMatch) result.timestamps.end = endMatch[1].trim();

  if (metricsMatch) {
    // Parse key: value pairs
    metricsMatch[1].split(',').forEach(pair => {
      const [key, value] = pair.split(':').map(s => s.trim());
      if (key && value) result.metrics[key] = value;
    });
  }

  return result;
}

const inputs = JSON.parse(require('fs').readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(inputs.map(parseAOPOutput)));
