// _dispatch_get_main_queue_handle_4CF and _dispatch_main_queue_callback_4CF are implemented
// by libdispatch itself; the epoll helpers are here.
#define _GNU_SOURCE
#include "CMainQueue.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>

int cmq_epoll_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

int cmq_epoll_watch(int epoll, int fd, uint64_t key, int modify) {
    return cmq_epoll_watch_for(epoll, fd, key, modify, 0);
}

int cmq_epoll_watch_for(int epoll, int fd, uint64_t key, int modify, int writable) {
    struct epoll_event event = {0};
    event.events = writable ? EPOLLOUT : (EPOLLIN | EPOLLRDHUP);
    event.data.u64 = key;
    int result = epoll_ctl(epoll, modify ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &event);
    // A descriptor closed without being removed left the set (the kernel drops it), and its
    // number may come back as a new descriptor; one registered under a number the caller
    // thought free is there already. Either way the other operation is the right one.
    if (result != 0 && ((modify && errno == ENOENT) || (!modify && errno == EEXIST))) {
        result = epoll_ctl(epoll, modify ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event);
    }
    return result;
}

int cmq_epoll_unwatch(int epoll, int fd) {
    struct epoll_event event = {0};
    return epoll_ctl(epoll, EPOLL_CTL_DEL, fd, &event);
}

int cmq_epoll_wait(int epoll, uint64_t *keys, int capacity, int timeout) {
    struct epoll_event events[64];
    if (capacity > 64) capacity = 64;
    int ready = epoll_wait(epoll, events, capacity, timeout);
    for (int index = 0; index < ready; index++) keys[index] = events[index].data.u64;
    return ready;
}

int cmq_eventfd_reset(int fd) {
    eventfd_t value = 0;
    return eventfd_read(fd, &value);
}

int cmq_timerfd_create(void) {
    return timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
}

int cmq_timerfd_arm(int fd, uint64_t deadline) {
    struct itimerspec specification = {0};
    specification.it_value.tv_sec = (time_t)(deadline / 1000000000u);
    specification.it_value.tv_nsec = (long)(deadline % 1000000000u);
    return timerfd_settime(fd, TFD_TIMER_ABSTIME, &specification, NULL);
}

uint64_t cmq_monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

// The write end of the signal pipe, read by the handler (set once, before any handler).
static volatile int cmq_signal_write_end = -1;

static void cmq_signal_handler(int number) {
    int saved = errno;
    unsigned char byte = (unsigned char)number;
    // Non-blocking: a full pipe (signals far faster than the loop reads) drops the byte;
    // the ones already in it say the same.
    (void)write(cmq_signal_write_end, &byte, 1);
    errno = saved;
}

int cmq_signal_pipe(void) {
    if (cmq_signal_write_end >= 0) return -1;
    int ends[2];
    if (pipe2(ends, O_CLOEXEC | O_NONBLOCK) != 0) return -1;
    cmq_signal_write_end = ends[1];
    return ends[0];
}

int cmq_signal_route(int number) {
    if (cmq_signal_write_end < 0) return -1;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = cmq_signal_handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    return sigaction(number, &action, NULL);
}
