#include "core/compare/significance.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace uringload::core {
namespace {

double RelativeShift(double base, double next) {
  if (base == 0) return next == 0 ? 0 : INFINITY;
  return next / base - 1;
}

// The regularized incomplete beta function I_x(a, b), by its continued fraction (Lentz).
double IncompleteBeta(double x, double a, double b) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  if (x > (a + 1) / (a + b + 2)) return 1 - IncompleteBeta(1 - x, b, a);
  double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) +
                          b * std::log1p(-x)) /
                 a;
  constexpr double kTiny = 1e-300;
  double f = 1, c = 1, d = 0;
  for (int i = 0; i <= 400; ++i) {
    int m = i / 2;
    double numerator;
    if (i == 0) {
      numerator = 1;
    } else if (i % 2 == 0) {
      numerator = (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m));
    } else {
      numerator = -((a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1));
    }
    d = 1 + numerator * d;
    d = std::abs(d) < kTiny ? kTiny : d;
    d = 1 / d;
    c = 1 + numerator / c;
    c = std::abs(c) < kTiny ? kTiny : c;
    double cd = c * d;
    f *= cd;
    if (std::abs(1 - cd) < 1e-12) break;
  }
  return front * (f - 1);
}

// The t (or z, for df = inf) with P(|T| <= t) = confidence, by bisection on the CDF.
double TwoSidedCritical(double confidence, double df) {
  double target = 1 - (1 - confidence) / 2;
  double lo = 0, hi = 1000;
  for (int i = 0; i < 200; ++i) {
    double mid = (lo + hi) / 2;
    double cdf = std::isinf(df) ? NormalCdf(mid) : StudentTCdf(mid, df);
    (cdf < target ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

// The value at quantile q of bucket counts (the bucket's midpoint), or their mean (q < 0).
double ValueOf(const std::vector<size_t>& buckets, const std::vector<uint64_t>& counts, uint64_t n,
               double q) {
  if (n == 0) return 0;
  auto mid = [](size_t b) { return HistogramBuckets::Lower(b) + HistogramBuckets::Width(b) / 2.0; };
  if (q < 0) {
    double sum = 0;
    for (size_t i = 0; i < buckets.size(); ++i) sum += mid(buckets[i]) * counts[i];
    return sum / n;
  }
  auto rank = static_cast<uint64_t>(std::ceil(q * n));
  rank = std::max<uint64_t>(rank, 1);
  uint64_t seen = 0;
  for (size_t i = 0; i < buckets.size(); ++i) {
    seen += counts[i];
    if (seen >= rank) return mid(buckets[i]);
  }
  return mid(buckets.back());
}

// A histogram's non-empty buckets and their counts.
struct Sample {
  std::vector<size_t> buckets;
  std::vector<uint64_t> counts;
  uint64_t n = 0;
  explicit Sample(const HistogramSnapshot& h) {
    for (size_t b = 0; b < h.counts.size(); ++b) {
      if (h.counts[b] == 0) continue;
      buckets.push_back(b);
      counts.push_back(h.counts[b]);
      n += h.counts[b];
    }
  }
  std::vector<uint64_t> cumulative;  // Of counts, for drawing one request at a time.

  // A multinomial resample of n draws into `out`: request by request when there are few of
  // them for the buckets, else as a binomial per bucket (n may be millions).
  void Resample(std::mt19937_64& random, std::vector<uint64_t>& out) {
    out.assign(counts.size(), 0);
    if (n <= 32 * counts.size()) {
      if (cumulative.empty()) {
        uint64_t sum = 0;
        for (uint64_t c : counts) cumulative.push_back(sum += c);
      }
      std::uniform_int_distribution<uint64_t> pick(0, n - 1);
      for (uint64_t i = 0; i < n; ++i) {
        uint64_t at = pick(random);
        ++out[std::upper_bound(cumulative.begin(), cumulative.end(), at) - cumulative.begin()];
      }
      return;
    }
    uint64_t left = n;
    uint64_t mass = n;
    for (size_t i = 0; i < counts.size() && left > 0; ++i) {
      if (counts[i] >= mass) {
        out[i] = left;
        break;
      }
      std::binomial_distribution<uint64_t> draw(left, static_cast<double>(counts[i]) / mass);
      out[i] = draw(random);
      left -= out[i];
      mass -= counts[i];
    }
  }
};

double Percentile(std::vector<double>& values, double p) {
  if (values.empty()) return 0;
  auto k = static_cast<size_t>(std::clamp(p * (values.size() - 1), 0.0, values.size() - 1.0));
  std::nth_element(values.begin(), values.begin() + k, values.end());
  return values[k];
}

// The mean and the sample variance (over n - 1) of at least two values.
void Moments(std::span<const double> values, double* mean, double* variance) {
  *mean = 0;
  for (double x : values) *mean += x;
  *mean /= values.size();
  *variance = 0;
  for (double x : values) *variance += (x - *mean) * (x - *mean);
  *variance /= values.size() - 1;
}

}  // namespace

double NormalCdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

double StudentTCdf(double t, double df) {
  double tail = 0.5 * IncompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

RankTest MannWhitney(const HistogramSnapshot& base, const HistogramSnapshot& next,
                     double confidence) {
  RankTest r;
  double nx = static_cast<double>(base.count), ny = static_cast<double>(next.count);
  if (base.count == 0 || next.count == 0) return r;
  double n = nx + ny;
  double rank_before = 0;  // Ranks taken by the buckets below.
  double rank_sum_next = 0;
  double ties = 0;  // Sum of t^3 - t over the tie groups.
  size_t buckets = std::min(base.counts.size(), next.counts.size());
  for (size_t b = 0; b < buckets; ++b) {
    double t = static_cast<double>(base.counts[b] + next.counts[b]);
    if (t == 0) continue;
    rank_sum_next += next.counts[b] * (rank_before + (t + 1) / 2);
    ties += t * t * t - t;
    rank_before += t;
  }
  double u = rank_sum_next - ny * (ny + 1) / 2;  // Pairs where the new run is slower.
  r.superiority = u / (nx * ny);
  double variance = nx * ny / 12 * ((n + 1) - ties / (n * (n - 1)));
  if (variance <= 0) return r;
  r.z = (u - nx * ny / 2) / std::sqrt(variance);
  r.p = 2 * (1 - NormalCdf(std::abs(r.z)));
  r.significant = r.p < 1 - confidence;
  return r;
}

std::vector<Shift> BootstrapShifts(const HistogramSnapshot& base, const HistogramSnapshot& next,
                                   std::span<const double> quantiles, double confidence,
                                   int resamples, uint64_t seed) {
  Sample a(base), b(next);
  std::vector<Shift> shifts(quantiles.size());
  for (size_t k = 0; k < quantiles.size(); ++k) {
    shifts[k].base = ValueOf(a.buckets, a.counts, a.n, quantiles[k]);
    shifts[k].next = ValueOf(b.buckets, b.counts, b.n, quantiles[k]);
    shifts[k].shift = RelativeShift(shifts[k].base, shifts[k].next);
  }
  if (a.n == 0 || b.n == 0) return shifts;
  std::mt19937_64 random(seed);
  std::vector<std::vector<double>> drawn(quantiles.size());
  std::vector<uint64_t> ca, cb;
  for (int i = 0; i < resamples; ++i) {
    a.Resample(random, ca);
    b.Resample(random, cb);
    for (size_t k = 0; k < quantiles.size(); ++k) {
      drawn[k].push_back(RelativeShift(ValueOf(a.buckets, ca, a.n, quantiles[k]),
                                       ValueOf(b.buckets, cb, b.n, quantiles[k])));
    }
  }
  double alpha = 1 - confidence;
  for (size_t k = 0; k < quantiles.size(); ++k) {
    shifts[k].lower = Percentile(drawn[k], alpha / 2);
    shifts[k].upper = Percentile(drawn[k], 1 - alpha / 2);
    shifts[k].significant = shifts[k].lower > 0 || shifts[k].upper < 0;
    shifts[k].p = shifts[k].significant ? alpha : 1;  // The interval decides, not a p-value.
  }
  return shifts;
}

Shift Welch(std::span<const double> base, std::span<const double> next, double confidence) {
  Shift s;
  if (base.size() < 2 || next.size() < 2) {
    if (!base.empty()) s.base = base[0];
    if (!next.empty()) s.next = next[0];
    s.shift = RelativeShift(s.base, s.next);
    return s;
  }
  double ma, va, mb, vb;
  Moments(base, &ma, &va);
  Moments(next, &mb, &vb);
  s.base = ma;
  s.next = mb;
  s.shift = RelativeShift(ma, mb);
  double sa = va / base.size(), sb = vb / next.size();
  double se = std::sqrt(sa + sb);
  if (se == 0) {
    s.significant = ma != mb;
    s.p = s.significant ? 0 : 1;
    s.lower = s.upper = s.shift;
    return s;
  }
  double df = (sa + sb) * (sa + sb) / (sa * sa / (base.size() - 1) + sb * sb / (next.size() - 1));
  double t = (mb - ma) / se;
  s.p = 2 * (1 - StudentTCdf(std::abs(t), df));
  double half = TwoSidedCritical(confidence, df) * se;
  s.lower = ma == 0 ? 0 : (mb - ma - half) / ma;
  s.upper = ma == 0 ? 0 : (mb - ma + half) / ma;
  s.significant = s.p < 1 - confidence;
  return s;
}

Shift WithRunSpread(const Shift& shift, double spread, double confidence) {
  if (spread <= 0 || shift.base <= 0 || shift.next <= 0) return shift;
  Shift s = shift;
  double z = TwoSidedCritical(confidence, INFINITY);
  double ratio = std::log(s.next / s.base);
  double within =
      s.lower > -1 && s.upper > s.lower ? (std::log1p(s.upper) - std::log1p(s.lower)) / (2 * z) : 0;
  double se = std::sqrt(within * within + 2 * spread * spread);
  s.lower = std::expm1(ratio - z * se);
  s.upper = std::expm1(ratio + z * se);
  s.p = 2 * (1 - NormalCdf(std::abs(ratio) / se));
  s.significant = s.lower > 0 || s.upper < 0;
  return s;
}

double RelativeSpread(std::span<const double> values) {
  if (values.size() < 2) return 0;
  std::vector<double> logs;
  for (double v : values) {
    if (!(v > 0)) return 0;
    logs.push_back(std::log(v));
  }
  double mean, variance;
  Moments(logs, &mean, &variance);
  return std::sqrt(variance);
}

Shift TwoProportions(uint64_t base_events, uint64_t base_n, uint64_t next_events, uint64_t next_n,
                     double confidence) {
  Shift s;
  if (base_n == 0 || next_n == 0) return s;
  double p1 = static_cast<double>(base_events) / base_n;
  double p2 = static_cast<double>(next_events) / next_n;
  s.base = p1;
  s.next = p2;
  s.shift = RelativeShift(p1, p2);
  double pooled = static_cast<double>(base_events + next_events) / (base_n + next_n);
  double se = std::sqrt(pooled * (1 - pooled) * (1.0 / base_n + 1.0 / next_n));
  if (se == 0) return s;  // No errors on either side (or only errors): nothing to tell.
  double z = (p2 - p1) / se;
  s.p = 2 * (1 - NormalCdf(std::abs(z)));
  double half = TwoSidedCritical(confidence, INFINITY) *
                std::sqrt(p1 * (1 - p1) / base_n + p2 * (1 - p2) / next_n);
  s.lower = p1 == 0 ? 0 : (p2 - p1 - half) / p1;
  s.upper = p1 == 0 ? 0 : (p2 - p1 + half) / p1;
  s.significant = s.p < 1 - confidence;
  return s;
}

}  // namespace uringload::core
