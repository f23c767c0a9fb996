// The dtype switch, written once: dispatch_among<Types...>(dtype, f, unsupported) calls
// f.template operator()<T>() with T the C++ type of `dtype` when it is one of Types, else
// unsupported(), which must throw. No fmt here, so nvcc parses it too: core/backend.h's dispatch
// family throws an ember::Error naming the op, cuda/kernels.h's dispatch_type reports through
// cuda::unsupported().
//
//   dispatch_among<float, double>(t.dtype(), [&]<typename T>() { ... }, [&] { throw ...; });
#pragma once

#include "core/dtype.h"

namespace ember {

template <typename T, typename... Rest, typename F, typename Unsupported>
decltype(auto) dispatch_among(ScalarType dtype, F&& f, Unsupported&& unsupported) {
  if (dtype == dtype_of<T>::value) return f.template operator()<T>();
  if constexpr (sizeof...(Rest) > 0) {
    return dispatch_among<Rest...>(dtype, f, unsupported);
  } else {
    unsupported();
    __builtin_unreachable();
  }
}

}  // namespace ember
