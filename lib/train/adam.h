#pragma once
#include <cstdint>

#include "common/config_object.h"
#include "tensor/tensor.h"
#include "train/optimizer.h"

namespace sl {

struct AdamConfig {
  float beta1 = 0.9f;
  float beta2 = 0.98f;  // Marian's Transformer default
  float eps = 1e-9f;
};

// Adam over the whole flat parameter vector (one kernel launch per step). The moments m and
// v are flat vectors of P floats too, so model averaging can average them like parameters.
class Adam : public Optimizer {
 public:
  Adam(Device& dev, size_t P, const AdamConfig& cfg);
  // One update with learning rate lr on params[P] from grads[P]; step count advances.
  void step(const Tensor& params, const Tensor& grads, float lr) override;
  std::vector<Tensor> moments() const override { return {m_, v_}; }
  // Checkpoints: "adam_m", "adam_v" and the header field "adam_steps".
  std::vector<std::pair<std::string, Tensor>> state_arrays() const override {
    return {{"adam_m", m_}, {"adam_v", v_}};
  }
  nlohmann::json state_meta() const override { return {{"adam_steps", t_}}; }
  void restore_meta(const nlohmann::json& meta) override {
    t_ = meta.at("adam_steps").get<int64_t>();
  }

  const Tensor& m() const { return m_; }
  const Tensor& v() const { return v_; }
  int64_t steps() const { return t_; }
  void set_steps(int64_t t) { t_ = t; }
  const AdamConfig& config() const { return cfg_; }

 private:
  Device& dev_;
  AdamConfig cfg_;
  Tensor m_, v_;
  int64_t t_ = 0;
};

}  // namespace sl
