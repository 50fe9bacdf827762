// Writes rows of the sammshen schema (JSONL in) as Parquet with @dsnp/parquetjs: an independent
// writer for kvbench's reader (tests/e2e/sammshen_parquet.sh).
// Usage: node write_sammshen_parquet.mjs IN.jsonl OUT.parquet
import fs from 'node:fs';
import parquet from '@dsnp/parquetjs';
const [input, output] = process.argv.slice(2);
const text = {type: 'UTF8', optional: true};
const schema = new parquet.ParquetSchema({
  session_id: {type: 'UTF8'},
  model: {type: 'UTF8'},
  input: {repeated: true, fields: {
    role: text, content: text, name: text, tool_call_id: text,
    tool_calls: {repeated: true, fields: {
      id: text, type: text,
      function: {optional: true, fields: {name: text, arguments: text}}}}}},
  pre_gap: {type: 'DOUBLE'},
  output_length: {type: 'INT64'},
});
const writer = await parquet.ParquetWriter.openFile(schema, output, {compression: 'SNAPPY', rowGroupSize: 16});
for (const line of fs.readFileSync(input, 'utf8').split('\n')) {
  if (!line.trim()) continue;
  const row = JSON.parse(line);
  await writer.appendRow({
    session_id: row.session_id, model: row.model, pre_gap: row.pre_gap,
    output_length: BigInt(row.output_length),
    input: row.input.map(m => ({...m, content: m.content ?? undefined, tool_calls: m.tool_calls ?? []})),
  });
}
await writer.close();
