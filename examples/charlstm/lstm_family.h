// ember-charlstm's model family for the shared trainer (lstm_family.cpp).
#pragma once

#include "family.h"

namespace charlstm {

// The character LSTM (model.h) with its settings and presets tiny, small and large.
const charlm::Family& lstm_family();

}  // namespace charlstm
