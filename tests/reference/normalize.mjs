// Reference implementation of normalize_error: the key's rules (README's
// SQL API table, docs/DESIGN.md "The key") as JavaScript regexes, the
// language the original system wrote them in. The oracle for
// tests/test_normalize_conformance.py and the baseline for `make bench`.
//
//   node normalize.mjs INPUT.json           → JSON array of results on stdout
//   node normalize.mjs --bench INPUT.json N → messages/s over N rounds
import { readFileSync } from 'node:fs';

export function normalizeError(message) {
  return message
    .replace(/\/[A-Za-z0-9_/.\-@]+/g, '<PATH>')
    .replace(/[0-9]{2,}/g, '<N>')
    .replace(/'[^']{0,100}'/g, '<STR>')
    .replace(/"[^"]{0,100}"/g, '<STR>')
    .slice(0, 200)
    .trim();
}

const args = process.argv.slice(2);
if (args[0] === '--bench') {
  const inputs = JSON.parse(readFileSync(args[1], 'utf8'));
  const rounds = Number(args[2] ?? 5);
  const rates = [];
  let sink = 0;
  for (let r = 0; r < rounds; r++) {
    const start = process.hrtime.bigint();
    for (const m of inputs) sink += normalizeError(m).length;
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    rates.push(inputs.length / seconds);
  }
  rates.sort((a, b) => a - b);
  console.log(JSON.stringify({ rates, median: rates[Math.floor(rates.length / 2)], sink }));
} else {
  const inputs = JSON.parse(readFileSync(args[0], 'utf8'));
  process.stdout.write(JSON.stringify(inputs.map(normalizeError)));
}
