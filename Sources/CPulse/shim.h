#ifndef CAPTUREKIT_CPULSE_SHIM_H
#define CAPTUREKIT_CPULSE_SHIM_H

#include <pulse/pulseaudio.h>

/*
 * libpulse's asynchronous API for the sound-server backend (PulseAudio, and PipeWire through
 * pipewire-pulse). PA_INVALID_INDEX and PA_SUBSCRIPTION_EVENT_* masks are macros or enum values
 * Swift imports awkwardly; they are re-exported here so the backend names no raw numbers.
 */
static inline uint32_t ck_pa_invalid_index(void) { return PA_INVALID_INDEX; }

/* The facility (source, sink, module...) of a subscription event. */
static inline pa_subscription_event_type_t ck_pa_event_facility(pa_subscription_event_type_t t) {
    return (pa_subscription_event_type_t)(t & PA_SUBSCRIPTION_EVENT_FACILITY_MASK);
}

/* Whether a subscription event is new / change / remove. */
static inline pa_subscription_event_type_t ck_pa_event_kind(pa_subscription_event_type_t t) {
    return (pa_subscription_event_type_t)(t & PA_SUBSCRIPTION_EVENT_TYPE_MASK);
}

#endif
