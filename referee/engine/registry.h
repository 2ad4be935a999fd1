// The registry of variants by name, and loading variants from shared libraries.
//
// Built-in variants register at static-initialisation time with
// TAROCK_REGISTER_VARIANT. A plugin is a shared library that links against
// libtarock_engine and exports
//     extern "C" int tarock_plugin_abi_version();          // returns kPluginAbiVersion
//     extern "C" void tarock_register_variants(tarock::Registry* registry);
// LoadPlugin() dlopens it, checks the ABI version and calls the second function.
//
// Thread-safety: all methods are thread-safe; registration normally happens
// before any lookup.

#ifndef TAROCK_REFEREE_ENGINE_REGISTRY_H_
#define TAROCK_REFEREE_ENGINE_REGISTRY_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "referee/engine/game.h"

namespace tarock {

// Bumped whenever game.h changes incompatibly.
// 2: Deal::deck, VariantInfo::starting_account, BonusResult::seat.
// 3: VariantInfo::option_sets, HandResult::counts_as_hand.
// 4: State::ObserveCompact (a new virtual), Observation::history_actions.
inline constexpr int kPluginAbiVersion = 4;

// Creates a game from complete, validated options.
using GameFactory = std::function<std::unique_ptr<Game>(const Options& options)>;

class Registry {
 public:
  static Registry& Global();

  // Registers a variant; fails if the name is taken.
  absl::Status Register(VariantInfo info, GameFactory factory);
  // Creates a game. `options` may name any subset of the variant's options,
  // and `house=NAME` for one of its option sets (expanded first; explicit
  // options override it). Unknown names and values outside an option's choices
  // are one-line InvalidArgument errors that list the valid ones.
  absl::StatusOr<std::unique_ptr<Game>> Create(const std::string& name,
                                               const Options& options = {}) const;
  // Fills in defaults, expands `house`, and validates, without creating the game.
  absl::StatusOr<Options> CompleteOptions(const std::string& name, const Options& options) const;
  // The registered variants, sorted by name.
  std::vector<VariantInfo> List() const;
  absl::StatusOr<VariantInfo> Info(const std::string& name) const;

  // Loads a plugin library (see the file comment). The library stays loaded.
  absl::Status LoadPlugin(const std::string& path);

 private:
  struct Entry {
    VariantInfo info;
    GameFactory factory;
  };
  mutable absl::Mutex mu_;
  std::map<std::string, Entry> entries_ ABSL_GUARDED_BY(mu_);
};

namespace internal {
struct VariantRegisterer {
  VariantRegisterer(VariantInfo info, GameFactory factory);
};
}  // namespace internal

#define TAROCK_REGISTER_VARIANT(id, info, factory) \
  static ::tarock::internal::VariantRegisterer tarock_variant_registerer_##id(info, factory)

}  // namespace tarock

#endif  // TAROCK_REFEREE_ENGINE_REGISTRY_H_
