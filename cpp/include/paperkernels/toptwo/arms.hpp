// Reward distributions of the arms, shared by the sampler and the characteristic-time solver.
#pragma once

namespace paperkernels::toptwo {

enum class Arms { bernoulli, gaussian };

}  // namespace paperkernels::toptwo
