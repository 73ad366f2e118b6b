// What bench/learning.mjs needs from the sources, bundled once per bench run.
export { Store } from '../src/store/store';
export { LearningService, RollingRatings, ratingFigures, ratingsToJsonl, ratingId } from '../src/learning';
