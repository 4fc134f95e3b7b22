// Observation masking for the RFT cold start (docs/pipeline.md, 'RFT cold start'): token ids and a loss mask from a
// rendered trajectory text and its segment spans.
//
// The rule: mask 0 on exactly the tokens the policy does not write —
//   * the prompt (system text + question; the leading <|bos|> too),
//   * every <tool_response> … </tool_response> segment, INCLUDING the two tags,
//   * text between spans that no span covers (separators the renderer inserts, e.g. newlines);
// mask 1 on the policy's own tokens: <think>…</think>, <tool_call>…</tool_call>, <answer>…</answer> and the
// trailing <|eos|>.
// Why the tool_response tags are masked: the environment, not the policy, writes them. At rollout time the
// policy stops after </tool_call> and the tool output (tags included) is appended for it; training the model
// to emit <tool_response> would teach it to invent observations. Masking them keeps SFT consistent with what
// the RL loss trains (generated tokens only).
// The tag rule is applied on the token ids too, whatever the span labels say, so a renderer whose
// observation span covers only the inner text still gets the tags masked.
//
// Tokenisation is per segment: each span (and each gap) is encoded on its own and the ids concatenated, so no
// token straddles a segment boundary and a mask value is never ambiguous. That is also how the rollout sees
// text: the prompt and each observation are encoded separately and appended to the generated tokens.
import { LabError } from '../base/errors';
import type { Tokenizer } from './tokenizer';

export type SegmentKind = 'prompt' | 'think' | 'action' | 'answer' | 'observation';

/** Kinds whose tokens never enter the loss. */
export const MASKED_KINDS: ReadonlySet<SegmentKind> = new Set<SegmentKind>(['prompt', 'observation']);
const ALL_KINDS: ReadonlySet<string> = new Set(['prompt', 'think', 'action', 'answer', 'observation']);

/** A character range [start, end) of the text (UTF-16 code-unit offsets, as JS string indices). */
export interface Span {
  kind: SegmentKind;
  start: number;
  end: number;
}

export interface MaskedTokens {
  ids: number[];
  /** 1 = this token is a training target, 0 = context only. Same length as ids. */
  mask: number[];
  /** Token range [start, end) of each input span, in span order (filled by buildMaskedTokens). */
  segments?: Array<{ kind: SegmentKind; start: number; end: number }>;
}

export interface MaskOptions {
  /** Prepend <|bos|> (mask 0; default true). */
  bos?: boolean;
  /** Append <|eos|> (mask 1: the policy learns to stop; default true). */
  eos?: boolean;
}

/** Token ids and loss mask for one trajectory text (see the rule at the top of this file). */
export function buildMaskedTokens(tok: Tokenizer, text: string, spans: readonly Span[], opts: MaskOptions = {}): MaskedTokens {
  const sorted = [...spans].sort((a, b) => a.start - b.start || a.end - b.end);
  const ids: number[] = [];
  const mask: number[] = [];
  const push = (part: string, m: number): void => {
    for (const id of tok.encode(part)) {
      ids.push(id);
      mask.push(m);
    }
  };
  if (opts.bos ?? true) {
    ids.push(tok.special('<|bos|>'));
    mask.push(0);
  }
  const segments: Array<{ kind: SegmentKind; start: number; end: number }> = [];
  let pos = 0;
  for (const s of sorted) {
    if (!ALL_KINDS.has(s.kind)) throw new LabError('bad_request', `unknown segment kind ${String(s.kind)}`);
    if (!(Number.isInteger(s.start) && Number.isInteger(s.end) && s.start >= 0 && s.end >= s.start && s.end <= text.length)) {
      throw new LabError('bad_request', `span ${s.kind} [${s.start}, ${s.end}) is outside the text of length ${text.length}`);
    }
    if (s.start < pos) throw new LabError('bad_request', `span ${s.kind} [${s.start}, ${s.end}) overlaps the previous span (ends at ${pos})`);
    if (s.start > pos) push(text.slice(pos, s.start), 0); // gap: nobody labelled it, it is not policy output
    const first = ids.length;
    push(text.slice(s.start, s.end), MASKED_KINDS.has(s.kind) ? 0 : 1);
    segments.push({ kind: s.kind, start: first, end: ids.length });
    pos = s.end;
  }
  if (pos < text.length) push(text.slice(pos), 0);
  if (opts.eos ?? true) {
    ids.push(tok.special('<|eos|>'));
    mask.push(1);
  }
  // Tag rule on the ids: <tool_response> … </tool_response> inclusive is always 0.
  const open = tok.special('<tool_response>');
  const close = tok.special('</tool_response>');
  let inside = false;
  for (let i = 0; i < ids.length; i++) {
    if (ids[i] === open) inside = true;
    if (inside) mask[i] = 0;
    if (ids[i] === close) inside = false;
  }
  return { ids, mask, segments };
}

/** A training batch as plain typed arrays (row-major [batchSize, seqLen]); trainStep makes the tensors. */
export interface Batch {
  ids: Int32Array;
  /** targets[b, t] = the token after ids[b, t]. */
  targets: Int32Array;
  /** Loss weight of targets[b, t]: the mask of that target token; 0 on padding. */
  mask: Float32Array;
  batchSize: number;
  seqLen: number;
  /** Real (non-padding) target positions. */
  realTokens: number;
  /** Target positions in the loss (sum of mask). */
  lossTokens: number;
  /** Real target positions per row (the rest of the row is padding). */
  lengths: number[];
  /** An unlikelihood term on recent tokens (repetitionCandidates), off when absent. */
  unlikelihood?: { weight: number; window: number };
}

/**
 * The tokens token-level unlikelihood training (Welleck et al. 2019, arXiv 1908.04319) pushes down at each
 * position in the loss: the last `window` input tokens (ids[b, t - window + 1 .. t]) other than the target, each
 * once. A greedy loop ("Base Base Base", "Brusselselsel") continues with a token it has just written; lowering
 * the probability of recent tokens where the data says otherwise teaches the policy not to. Pure: returns
 * (position b * T + t, token) pairs, positions ascending.
 */
export function repetitionCandidates(batch: Pick<Batch, 'ids' | 'targets' | 'mask' | 'batchSize' | 'seqLen'>, window: number): { pos: number[]; tok: number[] } {
  const { batchSize: B, seqLen: T } = batch;
  const pos: number[] = [];
  const tok: number[] = [];
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < T; t++) {
      const i = b * T + t;
      if (batch.mask[i] === 0) continue;
      const seen = new Set<number>([batch.targets[i]!]);
      for (let j = t; j > t - window && j >= 0; j--) {
        const c = batch.ids[b * T + j]!;
        if (seen.has(c)) continue;
        seen.add(c);
        pos.push(i);
        tok.push(c);
      }
    }
  }
  return { pos, tok };
}

/**
 * Packs examples into a batch of next-token pairs: inputs x[0..n-2], targets x[1..n-1], each target weighted by
 * its own mask. Rows are right-padded with `padId` (mask 0). An example longer than seqLen + 1 tokens is cut to
 * its first seqLen + 1 (the RFT length filter should have dropped it; the cut keeps the batch valid).
 */
export function makeBatch(examples: readonly MaskedTokens[], seqLen: number, padId: number): Batch {
  const B = examples.length;
  const ids = new Int32Array(B * seqLen).fill(padId);
  const targets = new Int32Array(B * seqLen).fill(padId);
  const mask = new Float32Array(B * seqLen);
  let realTokens = 0;
  let lossTokens = 0;
  const lengths: number[] = [];
  examples.forEach((ex, b) => {
    if (ex.ids.length !== ex.mask.length) throw new LabError('bad_request', `example ${b}: ids and mask lengths differ`);
    const n = Math.max(0, Math.min(ex.ids.length - 1, seqLen));
    lengths.push(n);
    for (let t = 0; t < n; t++) {
      ids[b * seqLen + t] = ex.ids[t]!;
      targets[b * seqLen + t] = ex.ids[t + 1]!;
      const m = ex.mask[t + 1]!;
      mask[b * seqLen + t] = m;
      realTokens++;
      lossTokens += m;
    }
  });
  return { ids, targets, mask, batchSize: B, seqLen, realTokens, lossTokens, lengths };
}

/**
 * A batch's rows dealt into `parts` contiguous batches as even as can be (the first ones get the extra rows;
 * a part may be empty when there are fewer rows than parts), each with its own token counts. Pure.
 */
export function splitBatch(batch: Batch, parts: number): Batch[] {
  const { batchSize: B, seqLen: T } = batch;
  const out: Batch[] = [];
  let row = 0;
  for (let p = 0; p < parts; p++) {
    const rows = Math.floor(B / parts) + (p < B % parts ? 1 : 0);
    const mask = batch.mask.slice(row * T, (row + rows) * T);
    const lengths = batch.lengths.slice(row, row + rows);
    out.push({
      ids: batch.ids.slice(row * T, (row + rows) * T),
      targets: batch.targets.slice(row * T, (row + rows) * T),
      mask,
      batchSize: rows,
      seqLen: T,
      realTokens: lengths.reduce((a, b) => a + b, 0),
      lossTokens: mask.reduce((a, b) => a + b, 0),
      lengths,
      ...(batch.unlikelihood ? { unlikelihood: batch.unlikelihood } : {}),
    });
    row += rows;
  }
  return out;
}

/**
 * The sequence length a batch of these examples needs: its longest example's pairs, rounded up to a multiple
 * of 16 (few distinct shapes) and capped at `maxSeqLen`. Turn windows are mostly shorter than the context, and
 * padding every batch to the full context would spend most of a step on padding.
 */
export function fitSeqLen(examples: readonly MaskedTokens[], maxSeqLen: number): number {
  const longest = examples.reduce((m, ex) => Math.max(m, ex.ids.length - 1), 1);
  return Math.min(maxSeqLen, Math.ceil(longest / 16) * 16);
}

/** Fraction of real target tokens left out of the loss (`sft/masked_frac`). */
export function maskedFraction(batch: Batch): number {
  return batch.realTokens === 0 ? 0 : 1 - batch.lossTokens / batch.realTokens;
}

/**
 * Debug dump of a batch: for each row, one line per position `t | target token | mask`, where the token is the
 * target (the token being predicted) and the mask its loss weight. Padding is skipped.
 */
export function dumpBatch(tok: Tokenizer, batch: Batch, opts: { rows?: number } = {}): string {
  const lines: string[] = [];
  const rows = Math.min(batch.batchSize, opts.rows ?? batch.batchSize);
  for (let b = 0; b < rows; b++) {
    lines.push(`# row ${b}`);
    lines.push('   t | token | mask');
    for (let t = 0; t < batch.lengths[b]!; t++) {
      const i = b * batch.seqLen + t;
      lines.push(`${String(t).padStart(4)} | ${tok.tokenText(batch.targets[i]!)} | ${batch.mask[i]}`);
    }
  }
  return lines.join('\n');
}

/** The same dump for one example before batching: `token | mask` per token. */
export function dumpTokens(tok: Tokenizer, ex: MaskedTokens): string {
  return ex.ids.map((id, i) => `${tok.tokenText(id)} | ${ex.mask[i]}`).join('\n');
}
