import 'server-only';
import { neutralizeTags } from '@/server/trust/neutralize-tags';
import type { McpCallResult, McpContentPart } from '../types';

/**
 * What the model reads of an MCP result. Every piece of it is the server's text, so untrusted: framework tag
 * openings are defused (server/trust), and nothing of it is ever provenance (that is the tool message's artifact,
 * written by our code from the server's record, never from the result). Images and resources are typed references
 * ("[image: image/png, 1,024 bytes]"), never markup to render; the truncation the client made is said.
 */
export function resultText(result: McpCallResult): string {
  const pieces = result.parts.map(partText).filter((text) => text.length > 0);
  if (result.structuredContent !== undefined && !result.parts.some((p) => p.type === 'text')) {
    pieces.push(JSON.stringify(result.structuredContent));
  }
  if (!pieces.length) pieces.push(result.isError ? 'The tool failed without saying why.' : '(The tool returned nothing.)');
  if (result.truncated) pieces.push('[The result was cut to the size limit.]');
  return neutralizeTags(pieces.join('\n'));
}

function partText(part: McpContentPart): string {
  switch (part.type) {
    case 'text':
      return part.text;
    case 'image':
      return `[image: ${oneLine(part.mimeType)}, ${part.byteLength.toLocaleString('en-US')} bytes, not shown]`;
    case 'resource': {
      const head = `[resource: ${oneLine(part.uri)}${part.mimeType ? ` (${oneLine(part.mimeType)})` : ''}${part.name ? ` "${oneLine(part.name)}"` : ''}]`;
      return part.text ? `${head}\n${part.text}` : head;
    }
    default:
      return '';
  }
}

// A reference's fields sit inside one bracketed line: a server can't break out of it with a newline.
const oneLine = (text: string): string => text.replace(/[\r\n\u2028\u2029]+/g, ' ').slice(0, 500);
