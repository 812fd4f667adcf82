/* The one place that knows every memopt pass: tools call
 * memoptRegisterAllPasses before they parse a pipeline. It sits on top of
 * the technique libraries, which never include one another. */
#ifndef MEMOPT_INITALLPASSES_H
#define MEMOPT_INITALLPASSES_H

#ifdef __cplusplus
extern "C" {
#endif

/// Registers every memopt pass with the pass registry (Pass/Pass.h); calling it again does nothing.
void memoptRegisterAllPasses(void);

#ifdef __cplusplus
}
#endif

#endif /* MEMOPT_INITALLPASSES_H */
