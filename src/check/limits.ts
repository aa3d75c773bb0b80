/**
 * Limits as users write them, read the same way from flags and from the config file: durations
 * (30s, 2m), counts, rates (1/s, 30/m, 0.5/s) and per-queue limits (deployment=10, or 10 for every
 * queue). Each reader throws a plain Error that says what was expected; callers add where it was.
 */
import { formatDuration, parseDuration } from '../util/duration.js';
import type { QueueLimit, Unit } from './types.js';

export function readDuration(text: string, what = 'a duration'): number {
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch {
    throw new Error(`"${text}" is not ${what} (e.g. 500ms, 30s, 2m, 1h)`);
  }
  if (!(ms > 0)) throw new Error(`"${text}" must be longer than 0 (e.g. 30s)`);
  return ms;
}

export function readCount(text: string): number {
  if (!/^\d+$/.test(text.trim())) throw new Error(`"${text}" is not a whole number ≥ 0`);
  return Number(text.trim());
}

const PER: Record<string, number> = { s: 1, sec: 1, second: 1, m: 60, min: 60, minute: 60, h: 3600, hour: 3600 };

/** "1/s", "30/m", "0.5/s", or a bare number of events per second. Returns events per second. */
export function readRate(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:\/\s*([a-z]+))?\s*$/i.exec(text);
  const per = m?.[2] === undefined ? 1 : PER[m[2].toLowerCase()];
  if (!m || per === undefined) throw new Error(`"${text}" is not a rate (e.g. 1/s, 30/m, 0.5/s)`);
  return Number(m[1]) / per;
}

const QUEUE_NAME = /^[A-Za-z0-9_.:-]+$/;

/** `QUEUE=VALUE`, or `VALUE` alone (or `*=VALUE`) for every queue. */
export function readQueueLimit(text: string, readValue: (v: string) => number): QueueLimit {
  const eq = text.lastIndexOf('=');
  const queue = eq === -1 ? '*' : text.slice(0, eq).trim();
  const value = eq === -1 ? text : text.slice(eq + 1);
  if (queue !== '*' && !QUEUE_NAME.test(queue)) throw new Error(`"${queue}" is not a workqueue name (e.g. deployment, replicaset, or * for every queue)`);
  return { queue, limit: readValue(value), text: text.trim() };
}

/** A per-queue limit's name in results and descriptions: "depth", "retry rate of replicaset". */
export function queueLimitName(measure: 'depth' | 'retry rate', limit: QueueLimit): string {
  return `${measure}${limit.queue === '*' ? '' : ` of ${limit.queue}`}`;
}

/** A measured or limiting value in the words reports use. */
export function formatValue(value: number | null, unit: Unit): string {
  if (value === null) return '-';
  switch (unit) {
    case 'ms':
      return formatDuration(value);
    case 'count':
      return String(value);
    case 'per-second':
      return `${formatNumber(value)}/s`;
  }
}

function formatNumber(v: number): string {
  if (v === 0) return '0';
  if (Math.abs(v) >= 100) return v.toFixed(0);
  if (Math.abs(v) >= 1) return String(Math.round(v * 100) / 100);
  return String(Number(v.toPrecision(2)));
}
