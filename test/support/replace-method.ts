/**
 * `target` with one method replaced and every other member the real object's, bound to it (the stores keep
 * their state in private fields, which a proxy receiver does not have). Tests use it only for faults no real
 * component here can produce (a process dying at a given point, an answer lost after a commit), and say which.
 *
 * @example
 * const store = replaceMethod(h.store, 'transition', async (write) => { throw new Error('simulated crash'); });
 */
export function replaceMethod<T extends object, K extends keyof T>(target: T, name: K, replacement: T[K]): T {
  return new Proxy(target, {
    get(object, property) {
      if (property === name) return replacement;
      const value: unknown = Reflect.get(object, property, object);
      return typeof value === 'function' ? value.bind(object) : value;
    },
  });
}
