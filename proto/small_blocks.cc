#include "proto/small_blocks.h"

#include <malloc.h>
#include <sanitizer/asan_interface.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

namespace uringload::proto {
namespace {

// Under ASan a kept block is as untouchable as a freed one.
#if defined(__SANITIZE_ADDRESS__)
void Hide(void* block) { ASAN_POISON_MEMORY_REGION(block, malloc_usable_size(block)); }
void Show(void* block) { ASAN_UNPOISON_MEMORY_REGION(block, malloc_usable_size(block)); }
#else
void Hide(void*) {}
void Show(void*) {}
#endif

}  // namespace

SmallBlocks::~SmallBlocks() {
  for (Kept*& list : lists_) {
    while (list != nullptr) {
      Show(list);
      free(std::exchange(list, list->next));
    }
  }
}

// A request of `size` takes from the first list whose blocks are that large, and a new block
// is made of that list's size: given back, its usable size puts it on the same list (under
// ASan too, whose blocks have no more than the size asked for).
void* SmallBlocks::Take(size_t size) {
  if (size <= kMaxKeptBytes) {
    size_t k = size <= kSmallest ? 0 : (size - kSmallest + 15) / 16;
    if (Kept* block = lists_[k]; block != nullptr) {
      Show(block);
      lists_[k] = block->next;
      --kept_;
      return block;
    }
    size = kSmallest + 16 * k;
  }
  ++from_allocator_;
  return malloc(size);
}

void SmallBlocks::GiveBack(void* block) {
  if (block == nullptr) return;
  size_t usable = malloc_usable_size(block);
  if (usable < kSmallest || usable > kMaxKeptBytes) {
    free(block);
    return;
  }
  size_t k = (usable - kSmallest) / 16;
  lists_[k] = new (block) Kept{lists_[k]};
  ++kept_;
  Hide(block);
}

void* SmallBlocks::Resize(void* block, size_t size) {
  if (block == nullptr) return Take(size);
  size_t usable = malloc_usable_size(block);
  if (size <= usable) return block;
  void* grown = Take(size);
  if (grown == nullptr) return nullptr;
  std::memcpy(grown, block, usable);
  GiveBack(block);
  return grown;
}

}  // namespace uringload::proto
