#pragma once
#include <string>

namespace sl {

// The config reference (run-experiment --config-reference, docs/CONFIG.md) as Markdown.
// Keys, types, defaults and allowed values come from running the validator itself
// (parse_experiment_config) with a ConfigSchemaRecorder on a few sample configs that reach
// every branch (transformer / rnn, dense / sparse / fedavg, a custom network); only the
// one-line meanings are written here. A key the validator reads without a meaning, or a
// meaning for a key it no longer reads, throws std::logic_error, so the reference cannot
// drift from the validator (tests/reliability: config_reference_doc).
std::string config_reference_markdown();

}  // namespace sl
