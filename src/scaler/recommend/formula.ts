/**
 * A `combine: { formula }` over the sources' raw values by name, as KEDA's scalingModifiers:
 * `queue ?? http * 2`, `max(jobs, web / 3)`, `jobs > 100 ? jobs : 0`. A source that is failing
 * or has no sample reads as missing, and missing propagates through arithmetic until a `??`
 * falls through to its right side; a formula that ends missing (or not a finite number) gives
 * no evidence, so the target is not scaled down on it.
 *
 * Parsed by jsep (a small, maintained, dependency-free expression parser that supports `??`),
 * and evaluated here over its syntax tree with a closed set of node kinds and functions: a
 * formula can only do arithmetic on its sources, never run code (no `eval`, no member access).
 */
import jsep from 'jsep';

const MAX_FORMULA_LENGTH = 1_000;
const MAX_DEPTH = 32;

type Fn = (...args: number[]) => number;

/**
 * The functions a formula may call, in a table with no prototype and looked up as own
 * properties only: `constructor`, `__proto__`, `toString` and the rest of Object.prototype are
 * not functions of a formula, and are refused as any unknown name is.
 */
const FUNCTIONS: Readonly<Record<string, Fn>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, Fn>, {
    min: Math.min,
    max: Math.max,
    abs: Math.abs,
    ceil: Math.ceil,
    floor: Math.floor,
    round: Math.round,
  }),
);

function functionNamed(name: string): Fn | undefined {
  return Object.hasOwn(FUNCTIONS, name) ? FUNCTIONS[name] : undefined;
}

type Value = number | boolean | undefined;

export class FormulaError extends Error {
  override name = 'FormulaError';
}

export interface Formula {
  text: string;
  /** The source names it reads. */
  names: readonly string[];
  ast: jsep.Expression;
}

/** Parses and checks a formula; `known` are the source names it may read. */
export function parseFormula(text: string, known: readonly string[]): Formula {
  if (text.length > MAX_FORMULA_LENGTH) throw new FormulaError(`expected a formula of at most ${MAX_FORMULA_LENGTH} characters`);
  let ast: jsep.Expression;
  try {
    ast = jsep(text);
  } catch (err) {
    throw new FormulaError(`invalid formula: ${(err as Error).message}`);
  }
  const names = new Set<string>();
  check(ast, 0, names);
  const unknown = [...names].filter((n) => !known.includes(n));
  if (unknown.length > 0) throw new FormulaError(`the formula reads ${unknown.map((n) => `"${n}"`).join(', ')}, which no source is named (sources: ${known.join(', ')})`);
  return { text, names: [...names], ast };
}

const BINARY = new Set(['??', '||', '&&', '==', '!=', '<', '<=', '>', '>=', '+', '-', '*', '/', '%']);
const UNARY = new Set(['-', '+', '!']);

function check(node: jsep.Expression, depth: number, names: Set<string>): void {
  if (depth > MAX_DEPTH) throw new FormulaError(`the formula nests deeper than ${MAX_DEPTH}`);
  const child = (n: jsep.Expression) => check(n, depth + 1, names);
  switch (node.type) {
    case 'Literal':
      if (typeof node.value !== 'number' && typeof node.value !== 'boolean') throw new FormulaError(`unsupported literal ${String(node.raw)}: only numbers and true/false`);
      return;
    case 'Identifier':
      names.add(node.name as string);
      return;
    case 'BinaryExpression':
      if (!BINARY.has(node.operator as string)) throw new FormulaError(`unsupported operator "${String(node.operator)}"`);
      child(node.left as jsep.Expression);
      child(node.right as jsep.Expression);
      return;
    case 'UnaryExpression':
      if (!UNARY.has(node.operator as string)) throw new FormulaError(`unsupported operator "${String(node.operator)}"`);
      child(node.argument as jsep.Expression);
      return;
    case 'ConditionalExpression':
      child(node.test as jsep.Expression);
      child(node.consequent as jsep.Expression);
      child(node.alternate as jsep.Expression);
      return;
    case 'CallExpression': {
      const callee = node.callee as jsep.Expression;
      const name = callee.type === 'Identifier' ? (callee.name as string) : '';
      if (functionNamed(name) === undefined) throw new FormulaError(`unsupported function ${name ? `"${name}"` : 'call'}: only ${Object.keys(FUNCTIONS).join(', ')}`);
      const args = node.arguments as jsep.Expression[];
      if (args.length === 0) throw new FormulaError(`${name}() needs an argument`);
      args.forEach(child);
      return;
    }
    default:
      throw new FormulaError(`unsupported expression (${node.type})`);
  }
}

/** The formula's value over the sources' values; undefined when it ends missing or not finite. */
export function evaluateFormula(formula: Formula, values: Readonly<Record<string, number | undefined>>): number | undefined {
  const result = evaluate(formula.ast, values);
  return typeof result === 'number' && Number.isFinite(result) ? result : undefined;
}

function evaluate(node: jsep.Expression, values: Readonly<Record<string, number | undefined>>): Value {
  const ev = (n: unknown) => evaluate(n as jsep.Expression, values);
  switch (node.type) {
    case 'Literal':
      return node.value as number | boolean;
    case 'Identifier':
      return Object.hasOwn(values, node.name as string) ? finite(values[node.name as string]) : undefined;
    case 'UnaryExpression':
      return unary(node.operator as string, ev(node.argument));
    case 'ConditionalExpression': {
      const test = ev(node.test);
      if (test === undefined) return undefined;
      return test ? ev(node.consequent) : ev(node.alternate);
    }
    case 'CallExpression': {
      const args = (node.arguments as jsep.Expression[]).map(ev);
      if (!args.every((a): a is number => typeof a === 'number')) return undefined;
      return finite(functionNamed((node.callee as jsep.Expression).name as string)!(...args));
    }
    default: {
      const op = node.operator as string;
      const left = ev(node.left);
      if (op === '??') return left ?? ev(node.right);
      return binary(op, left, ev(node.right));
    }
  }
}

function unary(op: string, v: Value): Value {
  if (v === undefined) return undefined;
  if (op === '!') return !v;
  return finite(op === '-' ? -Number(v) : Number(v));
}

function binary(op: string, a: Value, b: Value): Value {
  if (a === undefined || b === undefined) return undefined;
  const x = Number(a);
  const y = Number(b);
  switch (op) {
    case '||': return Boolean(a) || Boolean(b);
    case '&&': return Boolean(a) && Boolean(b);
    case '==': return x === y;
    case '!=': return x !== y;
    case '<': return x < y;
    case '<=': return x <= y;
    case '>': return x > y;
    case '>=': return x >= y;
    case '+': return finite(x + y);
    case '-': return finite(x - y);
    case '*': return finite(x * y);
    case '/': return finite(x / y);
    default: return finite(x % y);
  }
}

/** Division by zero and overflow read as missing, so a `??` can fall through them. */
function finite(v: number | undefined): number | undefined {
  return v !== undefined && Number.isFinite(v) ? v : undefined;
}
