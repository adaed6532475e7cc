#include "train/train_config.h"

namespace sl {

TrainConfig parse_train_config(ConfigObject& c) {
  TrainConfig t;
  t.max_steps = c.integer("max_steps", t.max_steps, 1);
  t.max_epochs = c.integer("max_epochs", t.max_epochs, 0);
  t.schedule.lr = c.number("lr", t.schedule.lr, 1e-12, 10.0);
  t.schedule.warmup = c.integer("warmup", t.schedule.warmup, 0);
  t.schedule.decay = c.choice("decay", t.schedule.decay, {"inv_sqrt", "constant", "linear"});
  t.schedule.total = t.max_steps;
  ConfigObject adam = c.object("adam");
  t.adam.beta1 = static_cast<float>(adam.number("beta1", t.adam.beta1, 0.0, 0.999999));
  // At most 0.999999: beta2 is stored as float32, where 0.99999997 and up round to 1 (Adam's
  // bias correction then divides by 0 and the run goes NaN while the range check passed).
  t.adam.beta2 = static_cast<float>(adam.number("beta2", t.adam.beta2, 0.0, 0.999999));
  t.adam.eps = static_cast<float>(adam.number("eps", t.adam.eps, 1e-30, 1.0));
  adam.finish();
  t.optimizer = c.choice("optimizer", t.optimizer, {"adam", "sign", "sgd"});
  t.weight_decay = c.number("weight_decay", t.weight_decay, 0.0, 1e6);
  t.clip_norm = c.number("clip_norm", t.clip_norm, 0.0);
  t.log_every = c.integer("log_every", t.log_every, 1);
  t.checkpoint_every = c.integer("checkpoint_every", t.checkpoint_every, 0);
  t.keep_checkpoints = c.integer("keep_checkpoints", t.keep_checkpoints, 1);
  t.on_nonfinite = c.choice("on_nonfinite", t.on_nonfinite, {"skip", "stop"});
  t.time_limit_s = c.number("time_limit_s", t.time_limit_s, 0.0);
  c.finish();
  return t;
}

ValidConfig parse_valid_config(ConfigObject& c) {
  ValidConfig v;
  v.every = c.integer("every", v.every, 0);
  v.final_every = c.integer("final_every", v.final_every, 0);
  v.final_fraction = c.number("final_fraction", v.final_fraction, 0.0, 1.0);
  v.max_sentences = c.integer("max_sentences", v.max_sentences, 1);
  v.batch_sentences = c.integer("batch_sentences", v.batch_sentences, 1, 4096);
  v.batch_tokens = c.integer("batch_tokens", v.batch_tokens, 16);
  ConfigObject d = c.object("decode");
  const bool beam_given = d.has("beam_size");
  v.decode = parse_decode_options(d);
  if (!beam_given) v.decode.beam_size = 1;  // validation decodes greedily unless asked
  v.test_at_end = c.boolean("test_at_end", v.test_at_end);
  c.finish();
  return v;
}

}  // namespace sl
