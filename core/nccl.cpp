// NCCL's GPU memory per communicator (nccl.h): channels by interconnect, when NVLink SHARP applies.
#include "nccl.h"

namespace vl {

double nccl_channels(GpuLink link) {
    // 24 on NVSwitch boards and NVLink-bridged pairs [nccl-issue-1161]; PCIe 2 [nccl-tests-issue-307], taken as 4.
    return link == GpuLink::PCIe ? 4.0 : 24.0;
}

bool nccl_nvls(const NcclSetup& c, int64_t ranks) {
    const bool multicast = c.arch == GpuArch::Hopper || c.arch == GpuArch::Blackwell;  // CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED
    const bool switched = c.link == GpuLink::NVSwitch || c.link == GpuLink::Unknown;
    return multicast && switched && ranks > 2 && at_least(c.version, 2, 17) &&  // NVLS from NCCL 2.17 [nccl-release-notes]
           (c.eager || c.large);                                                  // lazily: where NVLS collectives run
}

}  // namespace vl
