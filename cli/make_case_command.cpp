// SPDX-License-Identifier: Apache-2.0
//! @file
//! `scancheck make-case`: a case directory generated from (architecture, shape, seed, regime).
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "core/case_dir.hpp"
#include "core/choices.hpp"
#include "core/generate.hpp"

namespace scancheck::cli {

void add_make_case(CLI::App& app, Action& action) {
  struct Options {
    std::string arch, regime = "default", io_dtype = "float32", sqrt_gradient = "bounded", decays = "linear", out;
    std::int64_t batch = 0, length = 0, width = 0, heads = 1;
    std::uint64_t seed = 0;
    bool no_h0 = false, no_dh_last = false, resets_at_start = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("make-case", "Generate a case directory deterministically from a seed");
  cmd->add_option("--arch", o->arch, architecture_choices())->required();
  cmd->add_option("--batch", o->batch, "B")->required();
  cmd->add_option("--length", o->length, "L")->required();
  cmd->add_option("--width", o->width, "W (merged [Re | Im] width for the complex kinds)")->required();
  cmd->add_option("--heads", o->heads, "H (default 1)");
  cmd->add_option("--seed", o->seed, "seed of the counter-based RNG")->required();
  cmd->add_option("--regime", o->regime, regime_choices());
  cmd->add_option("--io-dtype", o->io_dtype, dtype_choices());
  cmd->add_option("--sqrt-gradient", o->sqrt_gradient, sqrt_gradient_choices());
  cmd->add_flag("--no-h0", o->no_h0, "leave out the initial state h0");
  cmd->add_flag("--no-dh-last", o->no_dh_last, "leave out the cotangent dh_last");
  cmd->add_option("--decays", o->decays, "a plain scan's decays as a or as log a: " + decay_space_choices());
  cmd->add_flag("--resets-at-start", o->resets_at_start, "every batch entry starts with a reset (segment_pos 0)");
  cmd->add_option("--out", o->out, "case directory to write (replaced atomically)")->required();
  cmd->callback([&action, o] {
    action = [o] {
      CaseRequest r;
      r.architecture = parse_architecture(o->arch);
      r.shape = {o->batch, o->length, o->width, o->heads};
      r.seed = o->seed;
      r.regime = parse_regime(o->regime);
      r.io_dtype = parse_dtype(o->io_dtype);
      r.sqrt_gradient = parse_sqrt_gradient(o->sqrt_gradient);
      r.with_h0 = !o->no_h0;
      r.with_dh_last = !o->no_dh_last;
      r.decays = parse_decay_space(o->decays);
      r.resets_at_start = o->resets_at_start;
      save_case(make_case(r), o->out);
      std::printf("wrote %s: %s %s seed=%llu regime=%s io=%s\n", o->out.c_str(), o->arch.c_str(),
                  to_string(r.shape).c_str(), static_cast<unsigned long long>(r.seed), o->regime.c_str(),
                  o->io_dtype.c_str());
      return 0;
    };
  });
}

}  // namespace scancheck::cli
