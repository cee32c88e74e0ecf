// The speed calibration (issue 19 item 5): every row of tests/data/planner/speed_benchmarks.json set
// against vramlens' roofline for it, one efficiency per regime from the calibrate rows (the median of
// measured / roofline) and the holdout rows' error at that efficiency. Rendered here, in one place, for
// docs/speed.md (generate_docs) and for the tests, which check core/planner/speed.cpp's committed
// calibration against it.
#pragma once
#include <string>
#include <vector>

#include "planner/speed.h"

namespace vl::report {

struct SpeedRow {
    std::string id, split, regime, source, hardware, model, weights, test;
    double measured = 0;   // tokens/s, published
    double roofline = 0;   // tokens/s at efficiency 1
    double predicted = 0;  // tokens/s at the recomputed calibration
    double error = 0;      // (predicted - measured) / measured
};

struct SpeedReport {
    std::vector<SpeedRow> rows;
    SpeedCalibration calibration;  // recomputed from the rows (efficiencies to 3 significant digits)
    std::string document;          // docs/speed.md
};

// The regime names: "decode GPU", "decode CPU/Apple", "prefill", "decode row split", "prefill row split".
SpeedReport render_speed_report(const std::string& benchmarks_json);

}  // namespace vl::report
