// Data loading, as libtorch's torch::data: datasets (MNIST, your own Dataset<Self>, stream and
// stateful datasets, ChunkDataset), transforms applied with .map(...), samplers and the loaders
// that batch them.
//
//   #include <ember/ember.h>
//   auto train = ember::data::datasets::MNIST(root)
//                    .map(ember::data::transforms::Normalize<>(0.1307, 0.3081))
//                    .map(ember::data::transforms::Stack<>());
//   auto loader = ember::data::make_data_loader(std::move(train),
//                                               ember::data::DataLoaderOptions().batch_size(64));
//   for (auto& batch : *loader) { /* batch.data (64, 1, 28, 28), batch.target (64) */ }
#pragma once

#include "data/chunk.h"
#include "data/dataloader.h"
#include "data/datasets.h"
#include "data/example.h"
#include "data/mnist.h"
#include "data/samplers.h"
#include "data/transforms.h"
