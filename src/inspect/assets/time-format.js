// How the inspector writes times: a wall clock with milliseconds, a duration, an age.

export function clock(time) {
  if (!time) return '';
  const date = new Date(time);
  const pad = (value, size = 2) => String(value).padStart(size, '0');
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

export function duration(ms) {
  if (ms === undefined || ms === null) return '';
  return ms < 1000
    ? `${ms} ms`
    : ms < 60_000
      ? `${(ms / 1000).toFixed(1)} s`
      : `${(ms / 60_000).toFixed(1)} min`;
}

export function ago(time) {
  if (!time) return '—';
  const seconds = Math.max(0, Math.round((Date.now() - time) / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  return new Date(time).toLocaleString();
}
