#pragma once

#include <string>

namespace kvbench::agent {

// Folders kvbench ships beside its binaries, found from the running binary's folder (<bin>):
// installed (`cmake --install`: <prefix>/bin and <prefix>/share/kvbench/...) or in the source
// tree (<source>/build/bin and <source>/deploy/...). So `kvctl run deploy/examples/demo-sim.json`
// works from any working directory, with no environment variable set.
class BundledFolders {
 public:
  // `bin_dir`: the folder of the running binary (ProgramResolver::SelfBinDir()).
  explicit BundledFolders(std::string bin_dir);

  // The engine and cache-server profiles: $KV_PROFILES_DIR when set, else
  // <bin>/../share/kvbench/profiles, else <bin>/../../deploy/profiles; the last candidate when
  // none exists (loading it then names the missing folder).
  std::string ProfilesDir() const;
  // The demo's datasets (deploy/examples/datasets: the tau2 airline results):
  // <bin>/../share/kvbench/datasets, else <bin>/../../deploy/examples/datasets; "" when neither
  // exists.
  std::string ExampleDatasetsDir() const;

 private:
  std::string bin_dir_;
};

}  // namespace kvbench::agent
