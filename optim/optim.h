// Optimizers, learning-rate schedulers and gradient clipping, mirroring libtorch's torch::optim.
//
//   #include <ember/ember.h>
//   ember::optim::AdamW opt(model->parameters(), ember::optim::AdamWOptions(1e-3));
//   ember::optim::StepLR sched(opt, /*step_size=*/10);
//   loss.backward();
//   ember::nn::utils::clip_grad_norm_(model->parameters(), 1.0);
//   opt.step();
//   sched.step();
#pragma once

#include "optim/adagrad.h"
#include "optim/adam.h"
#include "optim/clip_grad.h"
#include "optim/lbfgs.h"
#include "optim/lr_scheduler.h"
#include "optim/optimizer.h"
#include "optim/rmsprop.h"
#include "optim/sgd.h"
