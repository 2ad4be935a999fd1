#include "referee/engine/registry.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tarock {

Registry& Registry::Global() {
  static Registry* registry = new Registry();
  return *registry;
}

absl::Status Registry::Register(VariantInfo info, GameFactory factory) {
  absl::MutexLock lock(&mu_);
  const std::string name = info.name;
  if (entries_.count(name)) return absl::AlreadyExistsError(absl::StrCat("variant '", name, "' is already registered"));
  entries_[name] = Entry{std::move(info), std::move(factory)};
  return absl::OkStatus();
}

absl::StatusOr<Options> Registry::CompleteOptions(const std::string& name,
                                                  const Options& options) const {
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(name);
  if (it == entries_.end()) {
    std::vector<std::string> names;
    for (const auto& [n, e] : entries_) names.push_back(n);
    return absl::NotFoundError(absl::StrCat("unknown variant '", name, "' (known: ",
                                            absl::StrJoin(names, ", "), ")"));
  }
  const VariantInfo& info = it->second.info;
  Options complete;
  for (const OptionSpec& spec : info.options) complete[spec.name] = spec.default_value;
  auto option_names = [&info] {
    std::vector<std::string> names;
    for (const OptionSpec& s : info.options) names.push_back(s.name);
    if (!info.option_sets.empty()) names.push_back(kHouseOption);
    return names.empty() ? std::string("it has none") : absl::StrJoin(names, ", ");
  };
  // Checks one name=value against the variant's option specs.
  auto check = [&](const std::string& key, const std::string& value) -> absl::Status {
    const OptionSpec* spec = nullptr;
    for (const OptionSpec& s : info.options)
      if (s.name == key) spec = &s;
    if (spec == nullptr)
      return absl::InvalidArgumentError(absl::StrCat("variant '", name, "' has no option '", key,
                                                     "' (options: ", option_names(), ")"));
    bool allowed = spec->choices.empty();
    for (const std::string& c : spec->choices) allowed |= (c == value);
    if (!allowed)
      return absl::InvalidArgumentError(absl::StrCat("option ", key, "=", value, " of variant '", name,
                                                     "' is not one of: ",
                                                     absl::StrJoin(spec->choices, ", ")));
    return absl::OkStatus();
  };
  // The house set first, so that options named beside it override its values.
  if (auto house = options.find(kHouseOption); house != options.end()) {
    const OptionSet* set = nullptr;
    for (const OptionSet& s : info.option_sets)
      if (s.name == house->second) set = &s;
    if (set == nullptr) {
      std::vector<std::string> sets;
      for (const OptionSet& s : info.option_sets) sets.push_back(s.name);
      return absl::InvalidArgumentError(
          sets.empty() ? absl::StrCat("variant '", name, "' has no option sets (house=",
                                      house->second, ")")
                       : absl::StrCat("option house=", house->second, " of variant '", name,
                                      "' is not one of: ", absl::StrJoin(sets, ", ")));
    }
    for (const auto& [key, value] : set->values) {
      if (absl::Status s = check(key, value); !s.ok())
        return absl::InternalError(absl::StrCat("option set house=", set->name, ": ", s.message()));
      complete[key] = value;
    }
  }
  for (const auto& [key, value] : options) {
    if (key == kHouseOption) continue;
    if (absl::Status s = check(key, value); !s.ok()) return s;
    complete[key] = value;
  }
  return complete;
}

absl::StatusOr<std::unique_ptr<Game>> Registry::Create(const std::string& name,
                                                       const Options& options) const {
  absl::StatusOr<Options> complete = CompleteOptions(name, options);
  if (!complete.ok()) return complete.status();
  GameFactory factory;
  {
    absl::MutexLock lock(&mu_);
    factory = entries_.at(name).factory;
  }
  return factory(*complete);
}

std::vector<VariantInfo> Registry::List() const {
  absl::MutexLock lock(&mu_);
  std::vector<VariantInfo> out;
  for (const auto& [name, entry] : entries_) out.push_back(entry.info);
  return out;
}

absl::StatusOr<VariantInfo> Registry::Info(const std::string& name) const {
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(name);
  if (it == entries_.end()) return absl::NotFoundError(absl::StrCat("unknown variant '", name, "'"));
  return it->second.info;
}

absl::Status Registry::LoadPlugin(const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr)
    return absl::NotFoundError(absl::StrCat("cannot load plugin ", path, ": ", dlerror()));
  using AbiFn = int (*)();
  using RegisterFn = void (*)(Registry*);
  auto abi = reinterpret_cast<AbiFn>(dlsym(handle, "tarock_plugin_abi_version"));
  auto reg = reinterpret_cast<RegisterFn>(dlsym(handle, "tarock_register_variants"));
  if (abi == nullptr || reg == nullptr) {
    dlclose(handle);
    return absl::InvalidArgumentError(absl::StrCat(
        "plugin ", path, " does not export tarock_plugin_abi_version and tarock_register_variants"));
  }
  if (abi() != kPluginAbiVersion) {
    const int got = abi();
    dlclose(handle);
    return absl::FailedPreconditionError(absl::StrCat("plugin ", path, " has ABI version ", got,
                                                      ", this engine needs ", kPluginAbiVersion));
  }
  reg(this);
  return absl::OkStatus();
}

namespace internal {
VariantRegisterer::VariantRegisterer(VariantInfo info, GameFactory factory) {
  const std::string name = info.name;
  absl::Status s = Registry::Global().Register(std::move(info), std::move(factory));
  if (!s.ok()) {
    std::fprintf(stderr, "tarock: %s\n", std::string(s.message()).c_str());
    std::abort();
  }
}
}  // namespace internal

}  // namespace tarock
