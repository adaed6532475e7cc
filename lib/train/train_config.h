#pragma once
#include <cstdint>
#include <string>

#include "common/config_object.h"
#include "eval/decoding/decode_options.h"
#include "train/adam.h"
#include "train/lr_schedule.h"

namespace sl {

// The "train" section of an experiment config.
struct TrainConfig {
  int64_t max_steps = 1000;  // optimizer steps (each sees one batch per node)
  int64_t max_epochs = 0;    // 0 = no limit; training stops at whichever comes first
  LrSchedule schedule;       // lr, warmup, decay
  AdamConfig adam;
  // The update rule (optimizer.h): "adam" | "sign" | "sgd". The experiment layer makes it
  // "sign" for distributed.method "demo" when the config does not name one (DeMo's rule).
  std::string optimizer = "adam";
  double weight_decay = 0;            // decoupled, for "sign" and "sgd"
  double clip_norm = 1.0;             // global L2 norm of U_n; 0 = off
  int64_t log_every = 10;             // steps between log.jsonl lines
  int64_t checkpoint_every = 0;       // 0 = only at the end
  int64_t keep_checkpoints = 2;       // newest kept; older ones deleted
  std::string on_nonfinite = "skip";  // "skip" the step | "stop" with the last good checkpoint
  double time_limit_s = 0;            // 0 = none: end training (normally) after this much wall time
};

// The "valid" section.
struct ValidConfig {
  int64_t every = 0;             // steps between validations; 0 = only at the end
  int64_t final_every = 0;       // and every N steps in the run's last final_fraction
  double final_fraction = 0.0;
  int64_t max_sentences = 500;   // dev sentences decoded for BLEU (the dev CE uses all)
  int64_t batch_sentences = 64;  // sentences per decoding batch
  int64_t batch_tokens = 4096;   // target tokens per batch for the dev cross-entropy
  bool test_at_end = true;       // decode the test set with the best-BLEU parameters
  DecodeOptions decode;          // "decode": beam_size (1 = greedy), length_alpha, ...
};

TrainConfig parse_train_config(ConfigObject& c);
ValidConfig parse_valid_config(ConfigObject& c);

}  // namespace sl
