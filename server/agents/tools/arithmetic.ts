import 'server-only';

/**
 * A small arithmetic evaluator for the calculator tool: numbers, + - * / % ^, parentheses and unary signs.
 * A recursive-descent parser over a token list — never eval — so model-written text can only do arithmetic.
 */
export class ArithmeticError extends Error {}

const MAX_LENGTH = 500;
const MAX_DEPTH = 50;

type Token = { type: 'num'; value: number } | { type: 'op'; value: string };

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  const re = /\s*(?:(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|([-+*/%^()]))/y;
  let i = 0;
  while (i < source.length) {
    if (/^\s*$/.test(source.slice(i))) break;
    re.lastIndex = i;
    const match = re.exec(source);
    if (!match) throw new ArithmeticError(`Unexpected character "${source.slice(i).trim()[0]}"`);
    if (match[1] !== undefined) tokens.push({ type: 'num', value: Number(match[1]) });
    else tokens.push({ type: 'op', value: match[2]! });
    i = re.lastIndex;
  }
  return tokens;
}

export function evaluateArithmetic(source: string): number {
  if (source.length > MAX_LENGTH) throw new ArithmeticError(`Expression is longer than ${MAX_LENGTH} characters`);
  const tokens = tokenize(source);
  if (!tokens.length) throw new ArithmeticError('Expression is empty');
  let pos = 0;
  let depth = 0;

  const peek = () => tokens[pos];
  const isOp = (value: string) => peek()?.type === 'op' && peek()?.value === value;

  // expr := term (('+'|'-') term)*
  function expr(): number {
    let value = term();
    while (isOp('+') || isOp('-')) {
      const op = tokens[pos++]!.value;
      const right = term();
      value = op === '+' ? value + right : value - right;
    }
    return value;
  }
  // term := unary (('*'|'/'|'%') unary)*
  function term(): number {
    let value = unary();
    while (isOp('*') || isOp('/') || isOp('%')) {
      const op = tokens[pos++]!.value;
      const right = unary();
      if ((op === '/' || op === '%') && right === 0) throw new ArithmeticError('Division by zero');
      value = op === '*' ? value * right : op === '/' ? value / right : value % right;
    }
    return value;
  }
  // unary := ('+'|'-') unary | power
  function unary(): number {
    if (isOp('-') || isOp('+')) {
      const op = tokens[pos++]!.value;
      return nested(() => (op === '-' ? -unary() : unary()));
    }
    return power();
  }
  // power := primary ('^' unary)?   (right-associative, binds tighter than a leading minus on its left)
  function power(): number {
    const base = primary();
    if (isOp('^')) {
      pos++;
      return base ** nested(unary);
    }
    return base;
  }
  // primary := number | '(' expr ')'
  function primary(): number {
    const token = tokens[pos++];
    if (!token) throw new ArithmeticError('Expression ends too early');
    if (token.type === 'num') return token.value;
    if (token.value === '(') {
      const value = nested(expr);
      if (!isOp(')')) throw new ArithmeticError('Missing ")"');
      pos++;
      return value;
    }
    throw new ArithmeticError(`Unexpected "${token.value}"`);
  }
  function nested(fn: () => number): number {
    if (++depth > MAX_DEPTH) throw new ArithmeticError('Expression is nested too deeply');
    try {
      return fn();
    } finally {
      depth--;
    }
  }

  const value = expr();
  if (pos < tokens.length) throw new ArithmeticError(`Unexpected "${(tokens[pos] as Token).value}"`);
  if (!Number.isFinite(value)) throw new ArithmeticError('The result is not a finite number');
  return value;
}

/** Format a result without floating-point noise (0.1 + 0.2 → 0.3). */
export function formatNumber(value: number): string {
  return String(Number(value.toPrecision(12)));
}
