// Seeded randomness, all from SplitMix64: stateless values that are a pure function of a seed
// and a position, so every worker and every shard draws the same one for the same request
// (SeededRandom); and a stream of them for draws that follow the traffic (SeededStream: a
// server's delays and faults, one per worker, so runs with the same --seed and the same
// traffic repeat their choices).
#pragma once

#include <cstdint>

namespace uringload {

// SplitMix64's output function: a bijection that spreads every input bit over the output.
inline uint64_t Mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// SplitMix64's step: advances `state` and returns its next output.
inline uint64_t SplitMix64(uint64_t& state) { return Mix64(state += 0x9e3779b97f4a7c15ull); }

// Value number `salt` of request `index` under `seed` (salt 0 is the first): independent of
// which worker or shard asks.
inline uint64_t SeededRandom(uint64_t seed, uint64_t index, uint64_t salt = 0) {
  uint64_t value = Mix64(seed * 0x9e3779b97f4a7c15ull + index);
  return salt == 0 ? value : Mix64(value ^ (salt * 0xd1b54a32d192ed03ull));
}

// Uniform in [0, n) from a 64-bit value (Lemire's multiply; bias below n / 2^64).
inline uint64_t Below(uint64_t value, uint64_t n) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(value) * n) >> 64);
}

// SplitMix64 as a generator: each value is the next position's (it passes BigCrush).
class SeededStream {
 public:
  explicit SeededStream(uint64_t seed) : state_(seed) {}
  uint64_t Next() { return SplitMix64(state_); }
  // Uniform in [0, 1).
  double NextDouble() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t state_;
};

}  // namespace uringload
