// The web pages' static files (arena/web/static/) and the documents (docs/*.md),
// built into the binary by arena/web/embed_assets.cmake: every file of that
// folder at /static/PATH, every document at /docs/NAME.md (the pages link them).
//
// Thread-safety: constant data; thread-safe.

#ifndef TAROCK_ARENA_WEB_ASSETS_H_
#define TAROCK_ARENA_WEB_ASSETS_H_

#include <cstddef>
#include <string_view>

namespace tarock::arena::web {

struct Asset {
  const char* path;  // "/static/style.css", "/docs/hosting.md"
  const char* data;
  size_t size;
};

// Every embedded file, ending with {nullptr, nullptr, 0} (generated).
extern const Asset kAssets[];
extern const int kNumAssets;

// The asset at `path` ("/static/...", "/docs/NAME.md"), or nullptr.
const Asset* FindAsset(std::string_view path);
// The Content-Type for a file name by its extension.
const char* ContentTypeOf(std::string_view path);

}  // namespace tarock::arena::web

#endif  // TAROCK_ARENA_WEB_ASSETS_H_
