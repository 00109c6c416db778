#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

/* MHD's variadic entry points cannot be called from Swift; these fixed-signature
   wrappers pass the options as an MHD_OPTION_ARRAY. */

/* Starts a daemon listening on `address` (IPv4 or IPv6 text) and `port` (0: any free
   port). Returns NULL when the address does not parse or MHD cannot start. */
static inline struct MHD_Daemon *bb_mhd_start(
    unsigned int flags, const char *address, uint16_t port, MHD_AcceptPolicyCallback policy, void *policy_cls,
    MHD_AccessHandlerCallback handler, void *handler_cls, struct MHD_OptionItem *options)
{
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    memset(&v4, 0, sizeof v4);
    memset(&v6, 0, sizeof v6);
    if (inet_pton(AF_INET, address, &v4.sin_addr) == 1) {
        v4.sin_family = AF_INET;
        v4.sin_port = htons(port);
        return MHD_start_daemon(flags, port, policy, policy_cls, handler, handler_cls, MHD_OPTION_SOCK_ADDR,
                                (struct sockaddr *)&v4, MHD_OPTION_ARRAY, options, MHD_OPTION_END);
    }
    if (inet_pton(AF_INET6, address, &v6.sin6_addr) == 1) {
        v6.sin6_family = AF_INET6;
        v6.sin6_port = htons(port);
        return MHD_start_daemon(flags | MHD_USE_IPv6, port, policy, policy_cls, handler, handler_cls, MHD_OPTION_SOCK_ADDR,
                                (struct sockaddr *)&v6, MHD_OPTION_ARRAY, options, MHD_OPTION_END);
    }
    return NULL;
}

/* The daemon's epoll descriptor (MHD_USE_EPOLL), or -1. */
static inline int bb_mhd_epoll_fd(struct MHD_Daemon *daemon)
{
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_EPOLL_FD);
    return info ? info->epoll_fd : -1;
}

/* The port the daemon listens on, or 0. */
static inline uint16_t bb_mhd_port(struct MHD_Daemon *daemon)
{
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

/* Sets this connection's idle timeout in seconds (0: none), e.g. for an event stream. */
static inline void bb_mhd_connection_timeout(struct MHD_Connection *connection, unsigned int seconds)
{
    MHD_set_connection_option(connection, MHD_CONNECTION_OPTION_TIMEOUT, seconds);
}

/* `sa` as text (IPv4 or IPv6), written into `buffer`; empty when it is neither. */
static inline void bb_sockaddr_text(const struct sockaddr *sa, char *buffer, size_t size)
{
    buffer[0] = 0;
    if (!sa) return;
    if (sa->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, buffer, (socklen_t)size);
    } else if (sa->sa_family == AF_INET6) {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, buffer, (socklen_t)size);
    }
}

/* The client's address as text (IPv4 or IPv6), written into `buffer`; empty when unknown. */
static inline void bb_mhd_client_address(struct MHD_Connection *connection, char *buffer, size_t size)
{
    buffer[0] = 0;
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!info || !info->client_addr) return;
    const struct sockaddr *sa = info->client_addr;
    if (sa->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, buffer, (socklen_t)size);
    } else if (sa->sa_family == AF_INET6) {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, buffer, (socklen_t)size);
    }
}

/* A request header's value, or NULL. */
static inline const char *bb_mhd_header(struct MHD_Connection *connection, const char *name)
{
    return MHD_lookup_connection_value(connection, MHD_HEADER_KIND, name);
}

/* A query argument's value, or NULL. */
static inline const char *bb_mhd_query(struct MHD_Connection *connection, const char *name)
{
    return MHD_lookup_connection_value(connection, MHD_GET_ARGUMENT_KIND, name);
}

/* MHD_get_timeout as milliseconds, -1 when MHD needs no timer. */
static inline long long bb_mhd_timeout_ms(struct MHD_Daemon *daemon)
{
    MHD_UNSIGNED_LONG_LONG timeout = 0;
    if (MHD_get_timeout(daemon, &timeout) != MHD_YES) return -1;
    return (long long)timeout;
}
