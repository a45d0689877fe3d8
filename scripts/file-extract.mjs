// Text extraction for the files feature (server/files/extract.ts), run as its own Node process with a heap cap and a
// time limit so a decompression bomb ends this process, not the server. Usage: node file-extract.mjs pdf|docx MAXCHARS
// with the file's bytes on stdin; prints { text, truncated } as JSON. Exit 2: the bytes are not a readable file.
const [kind, maxCharsArg] = process.argv.slice(2);
const maxChars = Number(maxCharsArg);

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const data = Buffer.concat(chunks);

let text;
try {
  if (kind === 'pdf') {
    const { PDFParse } = await import('pdf-parse');
    const parser = new PDFParse({ data: new Uint8Array(data) });
    try {
      text = (await parser.getText()).text;
    } finally {
      await parser.destroy();
    }
  } else if (kind === 'docx') {
    const mammoth = (await import('mammoth')).default;
    text = (await mammoth.extractRawText({ buffer: data })).value;
  } else {
    process.exit(3);
  }
} catch (err) {
  process.stderr.write(String(err?.message ?? err));
  process.exit(2);
}
const truncated = text.length > maxChars;
process.stdout.write(JSON.stringify({ text: truncated ? text.slice(0, maxChars) : text, truncated }));
