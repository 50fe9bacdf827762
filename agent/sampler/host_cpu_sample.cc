#include "agent/sampler/host_cpu_sample.h"

#include <utility>

namespace kvbench::sampler {

v1::Sample HostCpuSample(const std::string& kind, double t_s, const telemetry::CpuTimes& cpu) {
  v1::Sample sample;
  sample.set_kind(kind);
  sample.set_source(kHostSource);
  sample.set_t_s(t_s);
  const std::pair<const char*, uint64_t> fields[] = {
      {"cpu_user_ticks", cpu.user},       {"cpu_nice_ticks", cpu.nice},
      {"cpu_system_ticks", cpu.system},   {"cpu_idle_ticks", cpu.idle},
      {"cpu_iowait_ticks", cpu.iowait},   {"cpu_irq_ticks", cpu.irq},
      {"cpu_softirq_ticks", cpu.softirq}, {"cpu_steal_ticks", cpu.steal}};
  for (const auto& [key, ticks] : fields) {
    (*sample.mutable_values())[key] = static_cast<double>(ticks);
  }
  return sample;
}

}  // namespace kvbench::sampler
