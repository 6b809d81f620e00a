# median(values, n): the median of values[1..n], sorting them in place (so values[n] is then
# the largest); 0 when n is 0. Shared by the scripts' reports: prepend this file's text to an
# awk program (awk "$(cat scripts/lib/median.awk)"'...'), which any awk accepts.
function median(values, n,    i, j, x) {
  for (i = 1; i <= n; i++)
    for (j = i + 1; j <= n; j++)
      if (values[j] < values[i]) { x = values[i]; values[i] = values[j]; values[j] = x }
  return n == 0 ? 0 : values[int((n + 1) / 2)]
}
