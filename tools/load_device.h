/*
 * `loadscope load --device N` (load_device.c): the pin backend that holds
 * the device copy, chosen and probed before the load, so that a machine
 * without the device gives the backend's one line and nothing is
 * allocated. A file of its own so that the tests run it over a fake
 * runtime's table (lsc__pin_override) in their own process.
 */
#ifndef LSC_TOOLS_LOAD_DEVICE_H
#define LSC_TOOLS_LOAD_DEVICE_H

#include <loadscope/loadscope.h>

/*
 * lsc_tool_load_device - make @o copy the load to device @device: the pin
 * backend @o->pin names (or, when it is "none", the first of this build
 * with device memory), which must have device memory, probed here; then
 * o->device = @device and LSC_LOAD_PIN_STRICT (a device copy asked for on
 * the command line does not quietly become a host-only load).
 * Return: 0; -EINVAL when the backend has no device memory (a usage
 * error: the line is the caller's to print, @why says it); or the
 * probe's error after one `error what=device` line on @p with the
 * backend's reason.
 */
int lsc_tool_load_device(lsc_profiler *p, struct lsc_load_options *o, int device, char *why,
			 size_t why_len);

#endif
