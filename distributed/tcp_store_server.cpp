// The TCP store's server: one thread, one poll() loop over the listening socket, a wake-up pipe and
// every connection, all non-blocking. It bounds what a stranger can hold: connections still in the
// handshake (max_pending, the oldest dropped for a newcomer, each with handshake_timeout), served
// connections (max_clients), and the time from a request's first byte to its reply being sent
// (request_timeout). A client that breaks a rule is closed; the server goes on. The protocol itself
// is StoreSession's (tcp_store_session.cpp); not here: the client (tcp_store.cpp).
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "core/error.h"
#include "distributed/tcp_store.h"

namespace ember::distributed::tcp_store {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kReadChunkBytes = 64 * 1024;
constexpr int kAcceptsPerWake = 256;                           // new connections taken per loop turn
constexpr auto kAcceptPause = std::chrono::milliseconds(100);  // after EMFILE: let fds come back
constexpr auto kLongestPoll = std::chrono::milliseconds(1000);

struct Connection {
  int fd = -1;
  std::unique_ptr<StoreSession> session;
  std::string out;  // the reply (or hello) being sent
  size_t sent = 0;
  Clock::time_point deadline;  // time_point::max() while authenticated and idle
  bool busy = false;           // a request or reply is under way
  bool closing = false;        // close once `out` is sent
};

bool would_block() { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR; }

// Sends what it can of c.out without blocking; false when the connection failed.
bool send_some(Connection& c) {
  while (c.sent < c.out.size()) {
    const ssize_t n = ::send(c.fd, c.out.data() + c.sent, c.out.size() - c.sent, MSG_NOSIGNAL);
    if (n < 0) return would_block();
    c.sent += static_cast<size_t>(n);
  }
  c.out.clear();
  c.sent = 0;
  return true;
}

}  // namespace

TCPStoreServer::TCPStoreServer(const ServerOptions& options) : options_(options) {
  // Served connections may take at most half of this process's file descriptors, so that clients
  // without a secret (on loopback) cannot leave none for Gloo's own sockets.
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY)
    options_.max_clients =
        static_cast<int>(std::min<rlim_t>(options_.max_clients, std::max<rlim_t>(files.rlim_cur / 2, 1)));
  addrinfo hints{}, *res = nullptr;
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  const int rc = ::getaddrinfo(options.bind_host.c_str(), nullptr, &hints, &res);
  EMBER_CHECK(rc == 0, "TCPStore: the master (rank 0) cannot resolve the address '{}' to listen on: {}",
              options.bind_host, ::gai_strerror(rc));
  sockaddr_in addr = *reinterpret_cast<sockaddr_in*>(res->ai_addr);
  ::freeaddrinfo(res);
  addr.sin_port = htons(static_cast<uint16_t>(options.port));

  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  EMBER_CHECK(listen_fd_ >= 0, "TCPStore: socket() failed: {}", std::strerror(errno));
  int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listen_fd_, SOMAXCONN) != 0) {
    const int err = errno;
    ::close(listen_fd_);
    if (err == EADDRNOTAVAIL)
      EMBER_FAIL(
          "TCPStore: the master (rank 0) cannot listen on {}:{}: {} is not an address of this machine (MASTER_ADDR "
          "must be rank 0's own address; EMBER_STORE_BIND=0.0.0.0 listens on every interface)",
          options.bind_host, options.port, options.bind_host);
    EMBER_FAIL(
        "TCPStore: the master (rank 0) cannot listen on {}:{}: {} (is another run using this port? pick another "
        "MASTER_PORT)",
        options.bind_host, options.port, std::strerror(err));
  }
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  if (::pipe2(wake_fds_, O_NONBLOCK | O_CLOEXEC) != 0) {
    const std::string why = std::strerror(errno);
    ::close(listen_fd_);
    EMBER_FAIL("TCPStore: pipe() failed: {}", why);
  }
  thread_ = std::thread([this] { loop(); });
}

TCPStoreServer::~TCPStoreServer() {
  const char stop = 1;
  while (::write(wake_fds_[1], &stop, 1) < 0 && errno == EINTR) {
  }
  thread_.join();
  ::close(listen_fd_);
  ::close(wake_fds_[0]);
  ::close(wake_fds_[1]);
}

void TCPStoreServer::loop() {
  StoreState state;
  state.max_clients = options_.max_clients;
  std::vector<Connection> conns;
  std::vector<pollfd> fds;
  std::vector<char> buffer(kReadChunkBytes);
  auto accept_paused_until = Clock::time_point::min();

  // After any progress: an idle served connection has no deadline; a busy one gets request_timeout,
  // renewed only when a reply has been sent (a slow drip of bytes does not renew it).
  auto update_deadline = [&](Connection& c, bool replied) {
    if (c.closing) {  // a refusal still being sent
      c.deadline = std::min(c.deadline, Clock::now() + options_.request_timeout);
      return;
    }
    if (!c.session->authenticated()) return;  // the handshake's deadline stands
    const bool busy = !c.out.empty() || !c.session->idle();
    if (!busy) {
      c.deadline = Clock::time_point::max();
    } else if (!c.busy || replied) {
      c.deadline = Clock::now() + options_.request_timeout;
    }
    c.busy = busy;
  };
  auto close_connection = [](Connection& c) {
    ::close(c.fd);
    c.fd = -1;
  };

  for (;;) {
    const auto now = Clock::now();
    fds.clear();
    fds.push_back({wake_fds_[0], POLLIN, 0});
    const bool accepting = now >= accept_paused_until;
    fds.push_back({listen_fd_, static_cast<short>(accepting ? POLLIN : 0), 0});
    auto wake_at = now + (accepting ? kLongestPoll : std::chrono::duration_cast<Clock::duration>(kAcceptPause));
    for (const Connection& c : conns) {
      fds.push_back({c.fd, static_cast<short>(c.out.empty() ? POLLIN : POLLOUT), 0});
      wake_at = std::min(wake_at, c.deadline);
    }
    const auto wait_ms = std::chrono::duration_cast<std::chrono::milliseconds>(wake_at - now).count();
    const int ready = ::poll(fds.data(), fds.size(), static_cast<int>(std::max<int64_t>(wait_ms, 0) + 1));
    if (ready < 0) {
      if (errno != EINTR) std::this_thread::sleep_for(std::chrono::milliseconds(10));  // ENOMEM: try again
      continue;
    }
    if (fds[0].revents) break;  // the destructor asked us to stop

    for (size_t i = 0; i < conns.size(); ++i) {
      Connection& c = conns[i];
      const short revents = fds[i + 2].revents;
      try {
        if (revents & (POLLERR | POLLNVAL)) {
          close_connection(c);
        } else if (!c.out.empty() && (revents & (POLLOUT | POLLHUP))) {
          if (!send_some(c)) {
            close_connection(c);
          } else if (c.out.empty()) {
            if (!c.closing && !c.session->feed({}, c.out)) c.closing = true;
            if (c.closing && c.out.empty()) {
              close_connection(c);
            } else {
              update_deadline(c, true);
            }
          }
        } else if (c.out.empty() && (revents & (POLLIN | POLLHUP))) {
          const ssize_t n = ::recv(c.fd, buffer.data(), buffer.size(), 0);
          if (n == 0 || (n < 0 && !would_block())) {
            close_connection(c);
          } else if (n > 0) {
            const bool was_authenticated = c.session->authenticated();
            if (!c.session->feed({buffer.data(), static_cast<size_t>(n)}, c.out)) c.closing = true;
            if (!send_some(c)) {
              close_connection(c);
            } else if (c.closing && c.out.empty()) {
              close_connection(c);
            } else {
              update_deadline(c, !was_authenticated && c.session->authenticated());
            }
          }
        }
      } catch (const std::exception&) {  // out of memory for this client's reply: close it alone
        if (c.fd >= 0) close_connection(c);
      }
      if (c.fd >= 0 && Clock::now() >= c.deadline) close_connection(c);
    }
    conns.erase(std::remove_if(conns.begin(), conns.end(), [](const Connection& c) { return c.fd < 0; }), conns.end());

    if (fds[1].revents & POLLIN) {
      for (int k = 0; k < kAcceptsPerWake; ++k) {
        const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
          if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
            accept_paused_until = Clock::now() + kAcceptPause;
          break;
        }
        try {
          // A full waiting room: the connection that has waited longest gives way.
          const auto pending = [](const Connection& c) { return !c.session->authenticated() && !c.closing; };
          if (std::count_if(conns.begin(), conns.end(), pending) >= options_.max_pending) {
            auto oldest = std::find_if(conns.begin(), conns.end(), pending);
            close_connection(*oldest);
            conns.erase(oldest);
          }
          Connection c;
          c.fd = fd;
          c.session = std::make_unique<StoreSession>(state, options_.secret, random_nonce());
          c.out = c.session->hello();
          c.deadline = Clock::now() + options_.handshake_timeout;
          conns.push_back(std::move(c));
          ++accepted_;
          if (!send_some(conns.back())) {
            close_connection(conns.back());
            conns.pop_back();
          }
        } catch (const std::exception&) {
          ::close(fd);
        }
      }
    }
    open_connections_ = static_cast<int>(conns.size());
  }
  for (Connection& c : conns) close_connection(c);
  open_connections_ = 0;
}

}  // namespace ember::distributed::tcp_store
